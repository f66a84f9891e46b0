"""Contest scoreboards: live (per GPU model, frozen for non-organizers during the freeze), final
(only results the final re-run confirmed), and virtual (a virtual participant placed among the
final standings). A fixed number of queries whatever the number of participants.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from gridstride.contests import scoring
from gridstride.contests.models import COUNTED_STATES, Contest, Entry, EntryKind, FinalRun, Participant
from gridstride.contests.permissions import is_organizer
from gridstride.contests.windows import Phase, phase
from gridstride.leaderboards.queries import assign_ranks
from gridstride.leaderboards.scoring import geomean
from gridstride.pages import units
from gridstride.submissions.models import Mode, Status

INF = float("inf")


@dataclass
class Standing:
    participant_id: int
    name: str
    score: scoring.Score
    is_virtual: bool = False
    is_viewer: bool = False
    # The viewer's own row during the freeze includes results others do not see yet.
    includes_hidden: bool = False
    rank: int = 0
    tied: bool = False
    cells: dict[int, str] = field(default_factory=dict)
    interval_text: str = ""

    @property
    def score_low_us(self) -> float | None:
        return self.score.low

    @score_low_us.setter
    def score_low_us(self, value: float | None) -> None:
        self.score.low = value

    @property
    def score_high_us(self) -> float | None:
        return self.score.high

    @score_high_us.setter
    def score_high_us(self, value: float | None) -> None:
        self.score.high = value


@dataclass
class BoardView:
    contest: Contest
    gpu_model: str
    phase: Phase
    frozen: bool  # the viewer sees the board as it was at the freeze
    standings: list[Standing]
    problems: list[tuple[int, str, str]]  # (problem id, label, title)


def _run(row: dict[str, Any], start: datetime) -> scoring.Run:
    return scoring.Run(
        submission_id=row["submission_id"],
        problem_id=row["submission__problem_id"],
        created_at=row["submission__created_at"],
        minutes=(row["submission__created_at"] - start).total_seconds() / 60.0,
        verdict=row["submission__verdict"],
        score_us=row["submission__score_us"],
        benchmarks=row["submission__report__benchmarks"] or (),
    )


_ROW = (
    "participant_id",
    "submission_id",
    "submission__problem_id",
    "submission__created_at",
    "submission__verdict",
    "submission__score_us",
    "submission__report__benchmarks",
)


def live_runs(
    contest: Contest,
    gpu_model: str,
    *,
    before: datetime | None = None,
    participant_ids: list[int] | None = None,
    virtual: bool = False,
) -> dict[int, list[scoring.Run]]:
    """Judged full submissions per participant (one query), each inside the participant's own
    window (the contest's, or a virtual participant's); `before` cuts off at the freeze."""
    qs = Entry.objects.filter(
        contest=contest,
        kind=EntryKind.LIVE,
        participant__is_virtual=virtual,
        submission__gpu_model=gpu_model,
        submission__mode=Mode.SUBMIT,
        submission__status=Status.DONE,
    )
    if participant_ids is not None:
        qs = qs.filter(participant_id__in=participant_ids)
    if before is not None:
        qs = qs.filter(submission__created_at__lt=before)
    starts = {}
    if virtual:
        starts = dict(qs.values_list("participant_id", "participant__window_start").distinct())
    runs: dict[int, list[scoring.Run]] = defaultdict(list)
    for row in qs.order_by("submission__created_at", "submission_id").values(*_ROW):
        pid = row["participant_id"]
        runs[pid].append(_run(row, starts.get(pid) or contest.starts_at))
    return runs


def rank(standings: list[Standing]) -> list[Standing]:
    """More solved first, then lower value; overlapping intervals within a solved count tie."""
    standings.sort(
        key=lambda s: (
            -s.score.solved,
            s.score.value if s.score.value is not None else INF,
            s.score.achieved_at.timestamp() if s.score.achieved_at else INF,
            s.is_virtual,
            s.participant_id,
        )
    )
    start = 0
    while start < len(standings):
        end = start
        while end < len(standings) and standings[end].score.solved == standings[start].score.solved:
            end += 1
        assign_ranks(standings[start:end], first_rank=start + 1)
        start = end
    return standings


def _cells(score: scoring.Score, runs: list[scoring.Run], fmt: str) -> dict[int, str]:
    by_id = {r.submission_id: r for r in runs}
    cells = {}
    for problem_id, submission_id in score.best.items():
        run = by_id.get(submission_id)
        if run is None:
            continue
        if fmt == "solved_penalty":
            cells[problem_id] = f"{int(run.minutes)} min"
        else:
            times = [b.get("median_us") for b in run.benchmarks] or [run.score_us]
            cells[problem_id] = units.duration_us(geomean(times))
    return cells


def interval_text(fmt: str, score: scoring.Score) -> str:
    """The score's confidence interval in the units the score is read in; a dash, as on practice
    boards, for a timed score without one (it ties with nobody). The penalty is exact: no column."""
    low, high = score.low, score.high
    if fmt == "solved_penalty" or score.value is None:
        return ""
    if low is None or high is None or not (low > 0 and high > 0):
        return "\u2014"
    if fmt == "geomean_speedup":
        return f"{units.factor(1 / high)} \u2013 {units.factor(1 / low)}"
    return f"{units.duration_us(low)} \u2013 {units.duration_us(high)}"


def standings_for(
    contest: Contest, participants: list[Participant], runs: dict[int, list[scoring.Run]]
) -> list[Standing]:
    fmt = scoring.get(contest.scoring)
    rows = []
    for p in participants:
        mine = runs.get(p.pk, [])
        score = fmt.score(mine)
        rows.append(
            Standing(
                participant_id=p.pk,
                name=p.name,
                score=score,
                is_virtual=p.is_virtual,
                cells=_cells(score, mine, fmt.key),
                interval_text=interval_text(fmt.key, score),
            )
        )
    return rank(rows)


def problems_of(contest: Contest) -> list[tuple[int, str, str]]:
    return [
        (cp.problem_id, cp.label, cp.problem.title)
        for cp in contest.contest_problems.select_related("problem").only("problem_id", "label", "problem__title")
    ]


def live_board(contest: Contest, gpu_model: str, viewer: Any, now: datetime) -> BoardView:
    """The live board as this viewer may see it: during the freeze, others' results stop at the
    freeze for everyone but organizers; a participant's own row keeps moving (only for them)."""
    current = phase(contest, now)
    frozen = current == Phase.FROZEN and not is_organizer(contest, viewer)
    participants = list(Participant.objects.filter(contest=contest, is_virtual=False).only("pk", "name", "is_virtual"))
    mine = _viewer_participant(contest, viewer)
    runs = live_runs(contest, gpu_model, before=contest.freeze_at if frozen else None)
    if frozen and mine is not None and not mine.is_virtual:
        own = live_runs(contest, gpu_model, participant_ids=[mine.pk])
        hidden = len(own.get(mine.pk, [])) != len(runs.get(mine.pk, []))
        runs[mine.pk] = own.get(mine.pk, [])
    else:
        hidden = False
    standings = standings_for(contest, participants, runs)
    for s in standings:
        if mine is not None and s.participant_id == mine.pk:
            s.is_viewer = True
            s.includes_hidden = hidden
    return BoardView(contest, gpu_model, current, frozen, standings, problems_of(contest))


def _viewer_participant(contest: Contest, viewer: Any) -> Participant | None:
    if viewer is None or not viewer.is_authenticated:
        return None
    return Participant.objects.filter(contest=contest, members__user=viewer).only("pk", "is_virtual").first()


def final_board(contest: Contest, gpu_model: str) -> list[Standing]:
    """Official results: each participant scored on the live submissions the re-run confirmed
    (final, or upheld after review). Invalidated and undecided results do not count."""
    counted = list(
        FinalRun.objects.filter(contest=contest, gpu_model=gpu_model, state__in=COUNTED_STATES).values_list(
            "participant_id", "live_id"
        )
    )
    keep: dict[int, set[int]] = defaultdict(set)
    for pid, live_id in counted:
        keep[pid].add(live_id)
    runs = live_runs(contest, gpu_model, participant_ids=list(keep))
    confirmed = {pid: [r for r in rs if r.submission_id in keep[pid]] for pid, rs in runs.items()}
    participants = list(Participant.objects.filter(pk__in=list(keep)).only("pk", "name", "is_virtual"))
    return standings_for(contest, participants, confirmed)


def virtual_board(contest: Contest, gpu_model: str, participant: Participant) -> list[Standing]:
    """Where a virtual participant would have ranked: the official final standings with their
    own row (scored on their own window) placed among them and marked virtual."""
    official = final_board(contest, gpu_model)
    runs = live_runs(contest, gpu_model, participant_ids=[participant.pk], virtual=True)
    mine = standings_for(contest, [participant], runs)
    mine[0].is_viewer = True
    return rank([*official, *mine])
