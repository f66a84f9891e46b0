"""State changes of leaderboards: keep each user's BestRun in step with their judged submissions."""

from __future__ import annotations

import logging
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F

from gridstride.catalog.models import Problem, ProblemVersion
from gridstride.leaderboards.models import ALL_LANGUAGES, BestRun
from gridstride.leaderboards.scoring import score_interval, speedup_of
from gridstride.submissions.models import Context, Mode, Status, Submission, Verdict

log = logging.getLogger(__name__)
CPU_MODEL = "cpu"


def _candidates(problem_id: int, ranking_hash: str, gpu_model: str) -> Any:
    """Runs that may stand on a board: accepted full judgings of a version with this ranking."""
    qs = Submission.objects.filter(
        problem_id=problem_id,
        # Assessment and contest runs stand on their own boards, never on the public one.
        context=Context.PRACTICE,
        gpu_model=gpu_model,
        status=Status.DONE,
        verdict=Verdict.ACCEPTED,
        mode=Mode.SUBMIT,
        ranked=gpu_model != CPU_MODEL,
        problem_version__in=ProblemVersion.objects.filter(problem_id=problem_id, ranking_hash=ranking_hash).values(
            "pk"
        ),
    )
    if gpu_model != CPU_MODEL:
        qs = qs.filter(score_us__isnull=False)
    return qs


def _fields(run: dict[str, Any]) -> dict[str, Any]:
    benchmarks = run.get("report__benchmarks")
    low, high = score_interval(benchmarks)
    return {
        "submission_id": run["pk"],
        "ranked": run["ranked"],
        "score_us": run["score_us"],
        "score_low_us": low,
        "score_high_us": high,
        "sol_pct": run["sol_pct"],
        "speedup": speedup_of(benchmarks),
        "run_language": run["language"],
        "achieved_at": run["created_at"],
    }


_RUN_FIELDS = ("pk", "ranked", "score_us", "sol_pct", "language", "created_at", "report__benchmarks")
_ORDER = (F("score_us").asc(nulls_last=True), F("created_at").asc(), F("pk").asc())


def refresh_entry(problem_id: int, ranking_hash: str, gpu_model: str, language: str, owner_id: int) -> None:
    """Recompute one user's entry on one board from their submissions (idempotent)."""
    runs = _candidates(problem_id, ranking_hash, gpu_model).filter(owner_id=owner_id)
    if language != ALL_LANGUAGES:
        runs = runs.filter(language=language)
    best = runs.order_by(*_ORDER).values(*_RUN_FIELDS).first()
    key: dict[str, Any] = {
        "problem_id": problem_id,
        "ranking_hash": ranking_hash,
        "gpu_model": gpu_model,
        "language": language,
        "owner_id": owner_id,
    }
    if best is None:
        BestRun.objects.filter(**key).delete()
        return
    for attempt in (1, 2):
        try:
            with transaction.atomic():
                BestRun.objects.update_or_create(**key, defaults=_fields(dict(best)))
            return
        except IntegrityError:  # another process created it first: update it on the second try
            if attempt == 2:
                raise


def on_judged(submission: Submission) -> None:
    """The pipeline judged (or rejudged) a run: refresh its owner's entries on its boards."""
    if submission.mode != Mode.SUBMIT:
        return
    ranking_hash = (
        ProblemVersion.objects.filter(pk=submission.problem_version_id).values_list("ranking_hash", flat=True).first()
    )
    if ranking_hash is None:
        return
    for language in (submission.language, ALL_LANGUAGES):
        refresh_entry(submission.problem_id, ranking_hash, submission.gpu_model, language, submission.owner_id)


def rebuild(problem: Problem | None = None) -> int:
    """Recompute every entry of the current rankings from Submission rows. Returns the entry count."""
    problems = Problem.objects.select_related("current_version").filter(current_version__isnull=False)
    if problem is not None:
        problems = problems.filter(pk=problem.pk)
    made = 0
    for p in problems:
        assert p.current_version is not None
        ranking_hash = p.current_version.ranking_hash
        gpus = (
            Submission.objects.filter(problem=p, verdict=Verdict.ACCEPTED, mode=Mode.SUBMIT)
            .order_by()
            .values_list("gpu_model", flat=True)
            .distinct()
        )
        rows: list[BestRun] = []
        for gpu in set(gpus):
            best: dict[tuple[str, int], dict[str, Any]] = {}
            runs = _candidates(p.pk, ranking_hash, gpu).order_by(*_ORDER).values(*_RUN_FIELDS, "owner_id")
            for run in runs.iterator(chunk_size=2000):
                for language in (run["language"], ALL_LANGUAGES):
                    best.setdefault((language, run["owner_id"]), run)  # ordered: the first is the best
            rows += [
                BestRun(
                    problem=p,
                    ranking_hash=ranking_hash,
                    gpu_model=gpu,
                    language=language,
                    owner_id=owner_id,
                    **_fields(run),
                )
                for (language, owner_id), run in best.items()
            ]
        with transaction.atomic():
            BestRun.objects.filter(problem=p).delete()
            BestRun.objects.bulk_create(rows, batch_size=1000)
        made += len(rows)
    return made
