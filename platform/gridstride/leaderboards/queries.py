"""Leaderboards: one per problem x GPU model x language (or all languages), for the problem's
current ranking hash: accepted full judgings, each user's best (lowest score_us); entries whose
score intervals overlap share a rank and are marked as ties.

The all-time boards read BestRun rows (kept current by leaderboards.actions from the pipeline's
`submission_judged` signal): one indexed range scan. Boards of a time window ("7d", "30d") are
computed from Submission rows, since a user's best of the last week is not their best ever.

Every function here runs a fixed number of queries whatever the board's size (tests assert it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol
from uuid import UUID

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import F, QuerySet, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from gridstride.catalog.models import Problem, ProblemVersion
from gridstride.leaderboards.models import ALL_LANGUAGES, BestRun
from gridstride.leaderboards.scoring import geomean, score_interval, speedup_of
from gridstride.submissions.models import Context, Mode, Status, Submission, Verdict

__all__ = ["geomean", "score_interval", "speedup_of"]

WINDOWS: dict[str, timedelta | None] = {"all": None, "30d": timedelta(days=30), "7d": timedelta(days=7)}
# The host kind that never ranks: results from it are listed as unranked practice runs.
CPU_MODEL = "cpu"
DEFAULT_LIMIT = 100

_FIELDS = (
    "id",
    "public_id",
    "owner_id",
    "owner__username",
    "language",
    "score_us",
    "sol_pct",
    "is_public",
    "created_at",
)


@dataclass
class Entry:
    rank: int
    user_id: int
    username: str
    public_id: UUID
    is_public: bool
    language: str
    score_us: float | None
    sol_pct: float | None
    created_at: datetime
    score_low_us: float | None = None
    score_high_us: float | None = None
    speedup: float | None = None
    tied: bool = False
    is_viewer: bool = False


@dataclass
class Board:
    problem: Problem
    gpu_model: str
    language: str | None
    window: str
    ranked: bool
    entries: list[Entry]
    total: int
    # The viewer's own entry when it is not among `entries` (they always see their row).
    viewer_entry: Entry | None = None
    gpu_models: list[str] = field(default_factory=list)

    @property
    def viewer_rank(self) -> int | None:
        if self.viewer_entry is not None:
            return self.viewer_entry.rank
        return next((e.rank for e in self.entries if e.is_viewer), None)


def accepted_runs(
    problem: Problem,
    gpu_model: str,
    language: str | None = None,
    window: str = "all",
    ranking_hash: str | None = None,
) -> QuerySet[Submission]:
    """The submissions a board is made of (before keeping each user's best)."""
    if ranking_hash is None:
        ranking_hash = problem.current_version.ranking_hash if problem.current_version else ""
    ranked = gpu_model != CPU_MODEL
    qs = Submission.objects.filter(
        problem=problem,
        context=Context.PRACTICE,
        gpu_model=gpu_model,
        status=Status.DONE,
        verdict=Verdict.ACCEPTED,
        mode=Mode.SUBMIT,
        ranked=ranked,
        problem_version__in=ProblemVersion.objects.filter(problem=problem, ranking_hash=ranking_hash).values("pk"),
    )
    if ranked:
        qs = qs.filter(score_us__isnull=False)
    if language:
        qs = qs.filter(language=language)
    delta = WINDOWS.get(window)
    if delta is not None:
        qs = qs.filter(created_at__gte=timezone.now() - delta)
    return qs


def _order() -> list[Any]:
    return [F("score_us").asc(nulls_last=True), F("created_at").asc(), F("id").asc()]


def best_per_user(runs: QuerySet[Submission]) -> QuerySet[Submission]:
    return runs.annotate(
        best_row=Window(RowNumber(), partition_by=[F("owner_id")], order_by=_order()),
    ).filter(best_row=1)


def _entry(row: dict[str, Any], rank: int, viewer_id: int | None) -> Entry:
    benchmarks = row.get("report__benchmarks")
    low, high = score_interval(benchmarks)
    return Entry(
        rank=rank,
        user_id=row["owner_id"],
        username=row["owner__username"],
        public_id=row["public_id"],
        is_public=row["is_public"],
        language=row["language"],
        score_us=row["score_us"],
        sol_pct=row["sol_pct"],
        created_at=row["created_at"],
        score_low_us=low,
        score_high_us=high,
        speedup=speedup_of(benchmarks),
        is_viewer=row["owner_id"] == viewer_id,
    )


class Rankable(Protocol):
    """What assign_ranks reads and writes (board entries here, contest standings elsewhere)."""

    rank: int
    tied: bool
    score_low_us: float | None
    score_high_us: float | None


def assign_ranks(entries: Sequence[Rankable], first_rank: int = 1) -> None:
    """Competition ranks; an entry whose interval overlaps its group leader's shares its rank.

    `entries` are in board order (lower score first); the interval is in the score's units."""
    leader: Rankable | None = None
    for i, e in enumerate(entries):
        overlaps = (
            leader is not None
            and leader.score_high_us is not None
            and e.score_low_us is not None
            and e.score_low_us <= leader.score_high_us
        )
        if overlaps and leader is not None:
            e.rank = leader.rank
            e.tied = leader.tied = True
        else:
            e.rank = first_rank + i
            leader = e


def gpu_models_for(problem: Problem) -> list[str]:
    """GPU models with at least one entry on this problem's boards (one query)."""
    found = (
        BestRun.objects.filter(problem=problem, language=ALL_LANGUAGES)
        .order_by()
        .values_list("gpu_model", flat=True)
        .distinct()
    )
    return sorted(set(found), key=lambda g: (g == CPU_MODEL, g))


def _ranking_hash(problem: Problem) -> str:
    return problem.current_version.ranking_hash if problem.current_version else ""


def best_runs(problem: Problem, gpu_model: str, language: str | None = None) -> QuerySet[BestRun]:
    """The entries of one all-time board (unordered)."""
    return BestRun.objects.filter(
        problem=problem,
        ranking_hash=_ranking_hash(problem),
        gpu_model=gpu_model,
        language=language or ALL_LANGUAGES,
    )


_BEST_FIELDS = (
    "owner_id",
    "owner__username",
    "submission__public_id",
    "submission__is_public",
    "run_language",
    "score_us",
    "score_low_us",
    "score_high_us",
    "sol_pct",
    "speedup",
    "achieved_at",
)
_BEST_ORDER = (F("score_us").asc(nulls_last=True), F("achieved_at").asc(), F("id").asc())


def _best_entry(row: dict[str, Any], rank: int, viewer_id: int | None) -> Entry:
    return Entry(
        rank=rank,
        user_id=row["owner_id"],
        username=row["owner__username"],
        public_id=row["submission__public_id"],
        is_public=row["submission__is_public"],
        language=row["run_language"],
        score_us=row["score_us"],
        sol_pct=row["sol_pct"],
        created_at=row["achieved_at"],
        score_low_us=row["score_low_us"],
        score_high_us=row["score_high_us"],
        speedup=row["speedup"],
        is_viewer=row["owner_id"] == viewer_id,
    )


def build_board(
    problem: Problem,
    gpu_model: str,
    language: str | None = None,
    window: str = "all",
    viewer: AbstractBaseUser | AnonymousUser | None = None,
    limit: int = DEFAULT_LIMIT,
) -> Board:
    """The board's first `limit` entries, the total, and the viewer's own entry (<= 5 queries)."""
    viewer_id = viewer.pk if viewer is not None and viewer.is_authenticated else None
    if WINDOWS.get(window) is None:
        entries, total, mine = _all_time(problem, gpu_model, language, viewer_id, limit)
    else:
        entries, total, mine = _windowed(problem, gpu_model, language, window, viewer_id, limit)
    return Board(
        problem=problem,
        gpu_model=gpu_model,
        language=language,
        window=window if WINDOWS.get(window) is not None else "all",
        ranked=gpu_model != CPU_MODEL,
        entries=entries,
        total=total,
        viewer_entry=mine,
    )


def _all_time(
    problem: Problem, gpu_model: str, language: str | None, viewer_id: int | None, limit: int
) -> tuple[list[Entry], int, Entry | None]:
    board = best_runs(problem, gpu_model, language)
    rows = list(board.order_by(*_BEST_ORDER).values(*_BEST_FIELDS)[:limit])
    entries = [_best_entry(row, i + 1, viewer_id) for i, row in enumerate(rows)]
    assign_ranks(entries)
    total = len(entries) if len(entries) < limit else board.count()
    mine = None
    if viewer_id is not None and len(entries) == limit and not any(e.is_viewer for e in entries):
        row = board.filter(owner_id=viewer_id).values(*_BEST_FIELDS).first()
        if row is not None:
            ahead_q = (
                board.filter(score_us__lt=row["score_us"])
                if row["score_us"] is not None
                else board.filter(score_us__isnull=False)
            )
            mine = _best_entry(row, ahead_q.count() + 1, viewer_id)
            above = ahead_q.order_by("-score_us").values("score_high_us").first()
            mine.tied = bool(
                above and above["score_high_us"] and mine.score_low_us and mine.score_low_us <= above["score_high_us"]
            )
    return entries, total, mine


def _windowed(
    problem: Problem, gpu_model: str, language: str | None, window: str, viewer_id: int | None, limit: int
) -> tuple[list[Entry], int, Entry | None]:
    runs = accepted_runs(problem, gpu_model, language, window)
    best = best_per_user(runs)
    rows = list(best.order_by(*_order()).values(*_FIELDS, "report__benchmarks")[:limit])
    entries = [_entry(row, i + 1, viewer_id) for i, row in enumerate(rows)]
    assign_ranks(entries)
    total = len(entries) if len(entries) < limit else best.count()
    mine = None
    if viewer_id is not None and not any(e.is_viewer for e in entries) and len(entries) == limit:
        mine = _viewer_entry(runs, best, viewer_id)
    return entries, total, mine


def _viewer_entry(runs: QuerySet[Submission], best: QuerySet[Submission], viewer_id: int) -> Entry | None:
    row = runs.filter(owner_id=viewer_id).order_by(*_order()).values(*_FIELDS, "report__benchmarks").first()
    if row is None:
        return None
    if row["score_us"] is None:
        ahead = best.filter(score_us__isnull=False).count()
    else:
        ahead = best.filter(score_us__lt=row["score_us"]).count()
    entry = _entry(row, ahead + 1, viewer_id)
    # Tied with the entry just above when the intervals overlap.
    if row["score_us"] is not None and ahead:
        above = best.filter(score_us__lt=row["score_us"]).order_by("-score_us").values("report__benchmarks").first()
        _, above_high = score_interval(above["report__benchmarks"] if above else None)
        entry.tied = bool(above_high and entry.score_low_us and entry.score_low_us <= above_high)
    return entry


def rank_for_score(problem: Problem, gpu_model: str, score_us: float, owner_id: int | None = None) -> int:
    """The rank a score would take on the all-languages board (one query)."""
    others = best_runs(problem, gpu_model)
    if owner_id is not None:
        others = others.exclude(owner_id=owner_id)
    return others.filter(score_us__lt=score_us).count() + 1


def rank_of(problem: Problem, gpu_model: str, public_id: UUID, score_us: float, owner_id: int) -> tuple[int, bool]:
    """(rank, tied) of one run on the all-languages board: its place on the board when it is its
    owner's best there, else the place its score would take (<= 3 queries)."""
    board = build_board(problem, gpu_model)
    for e in board.entries:
        if e.public_id == public_id:
            return e.rank, e.tied
    return rank_for_score(problem, gpu_model, score_us, owner_id), False


def best_known(problem: Problem, gpu_model: str) -> dict[str, Any] | None:
    """The board's best entry with its per-shape timings (for the roofline), or None (one query)."""
    row = (
        best_runs(problem, gpu_model)
        .order_by(*_BEST_ORDER)
        .values("owner__username", "score_us", "sol_pct", "submission__public_id", "submission__report__benchmarks")
        .first()
    )
    if row is None:
        return None
    return {
        "owner__username": row["owner__username"],
        "score_us": row["score_us"],
        "sol_pct": row["sol_pct"],
        "public_id": row["submission__public_id"],
        "report__benchmarks": row["submission__report__benchmarks"],
    }
