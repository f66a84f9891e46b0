"""State changes of the catalog. Views, commands and tasks call these, never the ORM directly."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction

from gridstride.catalog import ladders
from gridstride.catalog.models import Ladder, LadderGiveUp, LadderRung, Problem, ProblemVersion
from judge import spec as judge_spec


@dataclass
class SyncReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    deactivated: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    # Problems whose ladder was stored anew (created or changed) or removed.
    ladders: list[str] = field(default_factory=list)
    ladders_removed: list[str] = field(default_factory=list)


def _json_safe(problem: judge_spec.ProblemSpec) -> dict:
    data = problem.as_dict()
    data.pop("statement", None)
    data.pop("starters", None)
    return data


@transaction.atomic
def sync_problems(root: Path | None = None, repo_root: Path | None = None) -> SyncReport:
    """Mirror problems/ into Problem/ProblemVersion rows. Idempotent; broken problems are reported.
    Ladder rung paths are relative to repo_root (the repository's, as for judge/ladder.py)."""
    report = SyncReport()
    root = Path(root or settings.PROBLEMS_DIR)
    repo_root = Path(repo_root or settings.REPO_ROOT)
    specs, errors = judge_spec.load_all(root)
    report.errors = [str(e) for e in errors]
    broken = {e.path.parent.name for e in errors}
    seen = set()
    for s in specs:
        seen.add(s.slug)
        problem, created = Problem.objects.get_or_create(
            slug=s.slug,
            defaults={"title": s.title, "track": s.track, "difficulty": s.difficulty},
        )
        version, new_version = ProblemVersion.objects.get_or_create(
            problem=problem,
            content_hash=s.content_hash,
            defaults={
                "ranking_hash": s.ranking_hash,
                "statement": s.statement,
                "spec": _json_safe(s),
                "starters": s.starters,
            },
        )
        fields = {
            "title": s.title,
            "track": s.track,
            "difficulty": s.difficulty,
            "order": s.order,
            "tags": list(s.tags),
            "languages": list(s.languages),
            "is_active": True,
            "is_hidden": s.hidden,
            "current_version_id": version.pk,
        }
        changed = any(getattr(problem, k) != v for k, v in fields.items())
        if changed:
            for k, v in fields.items():
                setattr(problem, k, v)
            problem.save()
        if created:
            report.created.append(s.slug)
        elif changed or new_version:
            report.updated.append(s.slug)
        else:
            report.unchanged.append(s.slug)
        _sync_ladder(problem, root, repo_root, report)
    # A problem whose directory is gone is hidden; one that is merely broken keeps its last version.
    for problem in Problem.objects.filter(is_active=True).exclude(slug__in=seen | broken):
        problem.is_active = False
        problem.save(update_fields=["is_active", "updated_at"])
        report.deactivated.append(problem.slug)
    return report


def _sync_ladder(problem: Problem, root: Path, repo_root: Path, report: SyncReport) -> None:
    """Mirror the problem's ladder: rungs with their sources, editorial sections and figures.
    A broken ladder is reported and keeps what was stored; a removed one is deleted."""
    try:
        data = ladders.read_ladder(root / problem.slug, repo_root)
    except (ladders.LadderError, OSError, UnicodeDecodeError) as exc:
        report.errors.append(str(exc))
        return
    stored = Ladder.objects.filter(problem=problem).first()
    if data is None:
        if stored is not None:
            stored.delete()
            report.ladders_removed.append(problem.slug)
        return
    if stored is not None and stored.content_hash == data.content_hash:
        return
    ladder, _ = Ladder.objects.update_or_create(
        problem=problem, defaults={"intro": data.intro, "run": data.run, "content_hash": data.content_hash}
    )
    ladder.rungs.all().delete()
    LadderRung.objects.bulk_create(
        LadderRung(
            ladder=ladder,
            position=r.position,
            title=r.title,
            path=r.path,
            language=r.language,
            step=r.step,
            source=r.source,
            editorial=r.editorial,
            figures=r.figures,
        )
        for r in data.rungs
    )
    report.ladders.append(problem.slug)


def give_up_ladder(user: Any, problem: Problem) -> LadderGiveUp:
    """Record that the user chose to see the problem's ladder before solving it (once per problem)."""
    found, _ = LadderGiveUp.objects.get_or_create(user=user, problem=problem)
    return found
