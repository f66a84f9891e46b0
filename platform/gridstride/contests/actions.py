"""State changes of contests. Views, the API, tasks and commands call these, never the ORM.

Races are decided by the database: registration and submitting lock the participant's row (the
team size and the hourly limit are counted under that lock); the final re-run is keyed by a
unique row per result and decided by one conditional UPDATE (docs/contests.md, "Final re-run").
"""

from __future__ import annotations

import logging
import math
import re
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from gridstride.catalog.models import Problem
from gridstride.contests import scoring
from gridstride.contests.models import (
    Contest,
    ContestProblem,
    Entry,
    EntryKind,
    FinalRun,
    FinalRunState,
    FinalState,
    Member,
    Participant,
    Registration,
)
from gridstride.contests.permissions import is_organizer
from gridstride.contests.review import judge_signals
from gridstride.contests.windows import Phase, phase
from gridstride.lib.variation import hidden_shapes, job_fields, new_participant_seed
from gridstride.lib.windows import Window
from gridstride.submissions import actions as pipeline
from gridstride.submissions.models import PRIORITY, Context, Language, Mode, Status, Submission

log = logging.getLogger(__name__)

SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]{1,47}$")
MAX_TEAM = 10
MAX_RULES = 20_000
HOUR = timedelta(hours=1)


class ContestError(Exception):
    """Refused; the message is shown to the user as it is."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# --- creating a contest -------------------------------------------------------------------------


def create_contest(
    *,
    creator: Any,
    slug: str,
    title: str,
    starts_at: datetime,
    ends_at: datetime,
    problems: Sequence[Problem],
    gpu_models: Sequence[str],
    rules: str = "",
    languages: Sequence[str] = (),
    registration: str = Registration.OPEN,
    invite_code: str = "",
    team_size: int = 1,
    hourly_limit: int = 0,
    freeze_minutes: int = 0,
    scoring_format: str = scoring.DEFAULT_FORMAT,
    organizers: Iterable[Any] = (),
    rerun_tolerance_pct: float = 3.0,
) -> Contest:
    slug = slug.strip().lower()
    if not SLUG_RE.match(slug):
        raise ContestError("The short name takes 2-48 lowercase letters, digits and dashes.")
    if Contest.objects.filter(slug=slug).exists():
        raise ContestError(f"A contest called {slug!r} exists already.")
    if not title.strip():
        raise ContestError("Give the contest a title.")
    if ends_at <= starts_at:
        raise ContestError("The contest must end after it starts.")
    if not problems:
        raise ContestError("Choose at least one problem.")
    allowed_gpus = {settings.JUDGE_DEFAULT_GPU, *settings.JUDGE_GPU_MODELS}
    bad_gpus = [g for g in gpu_models if g not in allowed_gpus]
    if not gpu_models or bad_gpus:
        raise ContestError(f"Choose GPU models among: {', '.join(sorted(allowed_gpus))}.")
    bad_languages = [lang for lang in languages if lang not in Language.values]
    if bad_languages:
        raise ContestError(f"Unknown languages: {', '.join(bad_languages)}.")
    if registration not in Registration.values:
        raise ContestError("Registration is open or by invite code.")
    if registration == Registration.INVITE and len(invite_code.strip()) < 6:
        raise ContestError("An invite code has at least 6 characters.")
    if not 1 <= team_size <= MAX_TEAM:
        raise ContestError(f"Teams have 1 to {MAX_TEAM} members (1: individuals).")
    if freeze_minutes < 0 or timedelta(minutes=freeze_minutes) > ends_at - starts_at:
        raise ContestError("The freeze must fit inside the contest.")
    if hourly_limit < 0:
        raise ContestError("The hourly limit is 0 (none) or more.")
    if scoring_format not in scoring.FORMATS:
        raise ContestError(f"Unknown scoring format {scoring_format!r}.")
    if len(rules) > MAX_RULES:
        raise ContestError(f"The rules are limited to {MAX_RULES} characters.")
    if not 0 <= rerun_tolerance_pct <= 1000:
        raise ContestError("The re-run tolerance is a percentage between 0 and 1000.")
    with transaction.atomic():
        contest = Contest.objects.create(
            slug=slug,
            title=title.strip()[:200],
            rules=rules,
            starts_at=starts_at,
            ends_at=ends_at,
            freeze_minutes=freeze_minutes,
            gpu_models=list(dict.fromkeys(gpu_models)),
            languages=list(dict.fromkeys(languages)),
            registration=registration,
            invite_code=invite_code.strip() if registration == Registration.INVITE else "",
            team_size=team_size,
            hourly_limit=hourly_limit,
            scoring=scoring_format,
            rerun_tolerance_pct=rerun_tolerance_pct,
            created_by=creator,
        )
        for i, problem in enumerate(problems):
            ContestProblem.objects.create(contest=contest, problem=problem, label=_label(i), order=i)
        contest.organizers.set([u for u in organizers if u.pk != creator.pk])
    return contest


def _label(i: int) -> str:
    return chr(ord("A") + i) if i < 26 else f"P{i + 1}"


# Fields an organizer may change once the contest has started (problems, GPU models, languages,
# scoring and teams are fixed then: participants planned for them).
EDITABLE_WHILE_RUNNING = ("title", "rules", "ends_at", "freeze_minutes", "hourly_limit", "rerun_tolerance_pct")


def update_contest(
    contest: Contest, organizer: Any, *, organizers: Iterable[Any] | None = None, **changes: Any
) -> Contest:
    """An organizer's edit. Before the start everything may change; after it only the fields of
    EDITABLE_WHILE_RUNNING, and nothing once the contest has ended (its results are being decided)."""
    if not is_organizer(contest, organizer):
        raise ContestError("Only the contest's organizers edit it.")
    now = timezone.now()
    current = phase(contest, now)
    if current == Phase.ENDED:
        raise ContestError("The contest has ended; it can no longer be edited.")
    allowed = (
        EDITABLE_WHILE_RUNNING
        if current != Phase.BEFORE
        else (
            *EDITABLE_WHILE_RUNNING,
            "starts_at",
            "gpu_models",
            "languages",
            "registration",
            "invite_code",
            "team_size",
            "scoring",
        )
    )
    changed = {k: v for k, v in changes.items() if getattr(contest, k) != v}
    refused = sorted(set(changed) - set(allowed))
    if refused:
        raise ContestError(f"Once the contest has started these cannot change: {', '.join(refused)}.")
    starts_at = changed.get("starts_at", contest.starts_at)
    ends_at = changed.get("ends_at", contest.ends_at)
    if ends_at <= starts_at:
        raise ContestError("The contest must end after it starts.")
    if "ends_at" in changed and ends_at <= now:
        raise ContestError("The new end must be in the future.")
    if timedelta(minutes=changed.get("freeze_minutes", contest.freeze_minutes)) > ends_at - starts_at:
        raise ContestError("The freeze must fit inside the contest.")
    if len(changed.get("rules", "")) > MAX_RULES:
        raise ContestError(f"The rules are limited to {MAX_RULES} characters.")
    if organizers is not None:
        taking_part = Member.objects.filter(contest=contest, user__in=[u.pk for u in organizers])
        names = sorted(taking_part.values_list("user__username", flat=True))
        if names:
            raise ContestError(f"{', '.join(names)} take part in the contest and cannot organize it.")
    with transaction.atomic():
        if changed:
            Contest.objects.filter(pk=contest.pk).update(**changed)
        if organizers is not None:
            contest.organizers.set([u for u in organizers if u.pk != contest.created_by_id])
    contest.refresh_from_db()
    contest.__dict__.pop("_organizer_ids", None)
    return contest


# --- registering ----------------------------------------------------------------------------------


def register(contest: Contest, user: Any, *, invite_code: str = "", team_name: str = "") -> Participant:
    """Enter the contest as an individual, or found a team as its captain."""
    now = timezone.now()
    if phase(contest, now) == Phase.ENDED:
        raise ContestError("The contest has ended; take it as a virtual participant instead.")
    if contest.registration == Registration.INVITE and not secrets.compare_digest(
        invite_code.strip().encode(), contest.invite_code.encode()
    ):
        raise ContestError("That invite code is not right for this contest.")
    if is_organizer(contest, user):
        raise ContestError("Organizers run the contest and cannot take part in it.")
    name = user.get_username()
    join_code = ""
    if contest.is_team_contest:
        name = team_name.strip()
        if not 2 <= len(name) <= 64:
            raise ContestError("A team name has 2 to 64 characters.")
        join_code = secrets.token_urlsafe(9)
    try:
        with transaction.atomic():
            participant = Participant.objects.create(
                contest=contest,
                name=name,
                captain=user,
                join_code=join_code,
                participant_seed=new_participant_seed(),
            )
            Member.objects.create(contest=contest, participant=participant, user=user)
    except IntegrityError:
        if Member.objects.filter(contest=contest, user=user).exists():
            raise ContestError("You are registered for this contest already.") from None
        raise ContestError(f"The name {name!r} is taken in this contest.") from None
    return participant


def join_team(contest: Contest, user: Any, join_code: str) -> Participant:
    """Join a team with the code its captain shares; refused once the team is full."""
    if not contest.is_team_contest:
        raise ContestError("This contest is for individuals.")
    if phase(contest, timezone.now()) == Phase.ENDED:
        raise ContestError("The contest has ended.")
    if is_organizer(contest, user):
        raise ContestError("Organizers run the contest and cannot take part in it.")
    code = join_code.strip()
    with transaction.atomic():
        team = (
            Participant.objects.select_for_update()
            .filter(contest=contest, is_virtual=False, join_code=code)
            .exclude(join_code="")
            .first()
        )
        if team is None:
            raise ContestError("No team of this contest has that code.")
        if Member.objects.filter(contest=contest, user=user).exists():
            raise ContestError("You are registered for this contest already.")
        if Member.objects.filter(participant=team).count() >= contest.team_size:
            raise ContestError(f"{team.name} is full ({contest.team_size} members).")
        Member.objects.create(contest=contest, participant=team, user=user)
    return team


def start_virtual(contest: Contest, user: Any) -> Participant:
    """Take a past contest in your own window of the same length; marked virtual everywhere."""
    now = timezone.now()
    if phase(contest, now) != Phase.ENDED:
        raise ContestError("A contest can be taken virtually once it has ended.")
    if Member.objects.filter(contest=contest, user=user).exists():
        raise ContestError("You have taken part in this contest already.")
    with transaction.atomic():
        participant = Participant.objects.create(
            contest=contest,
            name=user.get_username(),
            captain=user,
            is_virtual=True,
            participant_seed=new_participant_seed(),
            window_start=now,
            window_end=now + contest.duration,
        )
        Member.objects.create(contest=contest, participant=participant, user=user)
    return participant


def participant_of(contest: Contest, user: Any) -> Participant | None:
    if not user.is_authenticated:
        return None
    member = Member.objects.select_related("participant").filter(contest=contest, user=user).first()
    return member.participant if member else None


# --- submitting -----------------------------------------------------------------------------------


def submit(
    contest: Contest,
    user: Any,
    *,
    problem: Problem,
    language: str,
    source: str,
    mode: str,
    gpu_model: str,
) -> Submission:
    """A contest submission, inside the participant's window; counted against the hourly limit."""
    now = timezone.now()
    participant = participant_of(contest, user)
    if participant is None:
        raise ContestError("Register for the contest to submit.")
    # The site's one window rule (lib/windows): half-open, the end instant already too late.
    window = Window(*participant.window(contest))
    if not window.is_open(now):
        closed = window.closes_at is not None and now >= window.closes_at
        raise ContestError(
            window.not_open_reason(now) + (" The problems are open for practice on their pages." if closed else "")
        )
    if not ContestProblem.objects.filter(contest=contest, problem=problem).exists():
        raise ContestError(f"{problem.slug} is not a problem of this contest.")
    if contest.languages and language not in contest.languages:
        raise ContestError("This contest takes " + ", ".join(Language(x).label for x in contest.languages) + ".")
    if gpu_model not in contest.gpu_models:
        raise ContestError(f"This contest judges on {', '.join(contest.gpu_models)}.")
    if mode not in (Mode.RUN, Mode.SUBMIT):
        raise ContestError("Mode must be run or submit.")
    with transaction.atomic():
        Participant.objects.select_for_update().filter(pk=participant.pk).first()
        if mode == Mode.SUBMIT and contest.hourly_limit:
            _check_hourly_limit(contest, participant, now)
        try:
            submission = pipeline.create_submission(
                owner=user,
                problem=problem,
                language=language,
                source=source,
                mode=mode,
                context=Context.CONTEST,
                context_key=contest.slug,
                gpu_model=gpu_model,
                # Live judging: the participant's own inputs on the public shapes (the board's
                # shapes); the hidden ones are kept for the final re-run.
                variation=job_fields(participant.participant_seed, []),
                allow_hidden=True,
            )
        except pipeline.SubmissionRefused as exc:
            raise ContestError(exc.message) from None
        Entry.objects.create(contest=contest, participant=participant, submission=submission, kind=EntryKind.LIVE)
    return submission


def _check_hourly_limit(contest: Contest, participant: Participant, now: datetime) -> None:
    recent = list(
        Entry.objects.filter(
            participant=participant,
            kind=EntryKind.LIVE,
            submission__mode=Mode.SUBMIT,
            submission__created_at__gt=now - HOUR,
        )
        .order_by("submission__created_at")
        .values_list("submission__created_at", flat=True)[: contest.hourly_limit]
    )
    if len(recent) >= contest.hourly_limit:
        wait = recent[0] + HOUR - now
        minutes = max(1, math.ceil(wait.total_seconds() / 60))
        who = "Your team has" if contest.is_team_contest else "You have"
        raise ContestError(
            f"{who} sent {len(recent)} submits in the last hour (the limit is {contest.hourly_limit} an hour). "
            f"The next is possible in {minutes} min; Run (correctness only) is not limited."
        )


# --- the final re-run -----------------------------------------------------------------------------


@dataclass
class FinalProgress:
    waiting: int = 0  # live judgings still running; the re-run starts after them
    created: int = 0
    judging: int = 0
    decided: int = 0
    done: bool = False


def start_final_run(contest: Contest, now: datetime | None = None) -> FinalProgress:
    """Re-judge each participant's counted live submission per problem and GPU model, once.

    Safe to call any number of times (the periodic task does, and `manage.py contest_final`):
    a result that has its FinalRun row is never sent again; a row whose rerun was judged but not
    yet decided (the web worker died between the two) is decided now.
    """
    from gridstride.contests.board import live_runs

    now = now or timezone.now()
    if now < contest.ends_at:
        raise ContestError("The final re-run starts after the contest ends.")
    if not contest.final_state:
        Contest.objects.filter(pk=contest.pk, final_state=FinalState.NOT_STARTED).update(
            final_state=FinalState.RUNNING, final_started_at=now
        )
    progress = FinalProgress()
    # A submission the server took before the end counts even when it is judged after: the
    # re-run picks each participant's best only once every live judging is recorded.
    progress.waiting = (
        Entry.objects.filter(contest=contest, kind=EntryKind.LIVE, participant__is_virtual=False)
        .exclude(submission__status=Status.DONE)
        .count()
    )
    if progress.waiting:
        return progress
    fmt = scoring.get(contest.scoring)
    existing = set(FinalRun.objects.filter(contest=contest).values_list("participant_id", "problem_id", "gpu_model"))
    for gpu in contest.gpu_models:
        for participant_id, runs in live_runs(contest, gpu).items():
            for problem_id, submission_id in fmt.score(runs).best.items():
                if (participant_id, problem_id, gpu) in existing:
                    continue
                if _create_final_run(contest, participant_id, problem_id, gpu, submission_id):
                    progress.created += 1
    for final_run in FinalRun.objects.filter(contest=contest, state=FinalRunState.JUDGING, rerun__status=Status.DONE):
        decide_final_run(final_run)
    states = list(FinalRun.objects.filter(contest=contest).values_list("state", flat=True))
    progress.judging = states.count(FinalRunState.JUDGING)
    progress.decided = len(states) - progress.judging
    if progress.judging == 0:
        progress.done = True
        Contest.objects.filter(pk=contest.pk).exclude(final_state=FinalState.DONE).update(
            final_state=FinalState.DONE, final_done_at=now
        )
    return progress


def _create_final_run(contest: Contest, participant_id: int, problem_id: int, gpu: str, submission_id: int) -> bool:
    live = Submission.objects.select_related("problem", "problem__current_version", "owner").get(pk=submission_id)
    try:
        with transaction.atomic():
            final_run = FinalRun.objects.create(
                contest=contest, participant_id=participant_id, problem_id=problem_id, gpu_model=gpu, live=live
            )
            # A new submission: a fresh secret seed (never used before, mixed with the judge's
            # own secret) and hidden shapes drawn from it, on top of the problem's current checks
            # and public shapes; queued at the rejudge priority behind live traffic.
            fresh = new_participant_seed()
            hidden = hidden_shapes(
                live.problem.current_version.spec if live.problem.current_version else {}, fresh, gpu
            )
            rerun = pipeline.create_submission(
                owner=live.owner,
                problem=live.problem,
                language=live.language,
                source=live.source,
                mode=Mode.SUBMIT,
                context=Context.CONTEST,
                context_key=contest.slug,
                gpu_model=gpu,
                priority=PRIORITY["rejudge"],
                rate_limited=False,
                variation=job_fields(fresh, hidden),
                allow_hidden=True,
            )
            Entry.objects.create(contest=contest, participant_id=participant_id, submission=rerun, kind=EntryKind.FINAL)
            FinalRun.objects.filter(pk=final_run.pk).update(rerun=rerun)
    except IntegrityError:  # another sweep created it first
        return False
    except pipeline.SubmissionRefused as exc:
        # The problem was withdrawn since: the result cannot be re-judged, so organizers decide.
        FinalRun.objects.get_or_create(
            contest=contest,
            participant_id=participant_id,
            problem_id=problem_id,
            gpu_model=gpu,
            defaults={
                "live": live,
                "state": FinalRunState.REVIEW,
                "signals": {"reasons": [f"could not be re-judged: {exc.message}"]},
                "judged_at": timezone.now(),
            },
        )
    return True


def decide_final_run(final_run: FinalRun) -> bool:
    """Final when the rerun passed, agrees with the live time and resembles no other team's code;
    else into review. Decided once: a second call (a duplicate signal, a sweep) changes nothing."""
    if final_run.rerun_id is None:
        return False
    rerun = Submission.objects.get(pk=final_run.rerun_id)
    if rerun.status != Status.DONE:
        return False
    contest = final_run.contest
    signals = judge_signals(final_run, rerun, contest)
    state = FinalRunState.REVIEW if signals["reasons"] else FinalRunState.FINAL
    written = FinalRun.objects.filter(pk=final_run.pk, state=FinalRunState.JUDGING).update(
        state=state, signals=signals, judged_at=timezone.now()
    )
    if written and not FinalRun.objects.filter(contest=contest, state=FinalRunState.JUDGING).exists():
        Contest.objects.filter(pk=contest.pk).exclude(final_state=FinalState.DONE).update(
            final_state=FinalState.DONE, final_done_at=timezone.now()
        )
    return bool(written)


def on_judged(submission: Submission) -> None:
    """The pipeline recorded a judgement: if it was a final re-run, decide its result."""
    if submission.context != Context.CONTEST:
        return
    final_run = FinalRun.objects.select_related("contest").filter(rerun=submission).first()
    if final_run is not None:
        decide_final_run(final_run)


def due_final_runs(now: datetime | None = None) -> int:
    """Start or resume the final re-run of every contest that has ended (the periodic task)."""
    now = now or timezone.now()
    count = 0
    for contest in Contest.objects.filter(ends_at__lte=now).exclude(final_state=FinalState.DONE):
        start_final_run(contest, now)
        count += 1
    return count


# --- review ---------------------------------------------------------------------------------------


def decide_review(final_run: FinalRun, organizer: Any, *, invalidate: bool, reason: str) -> FinalRun:
    """An organizer upholds a result under review, or invalidates it (any decided result) with a
    reason the participant sees. The report, the code and the signals stay as they were."""
    if not is_organizer(final_run.contest, organizer):
        raise ContestError("Only the contest's organizers decide reviews.")
    reason = reason.strip()
    if invalidate and not reason:
        raise ContestError("Say why the result is invalidated: the participant reads it.")
    allowed: tuple[str, ...] = (FinalRunState.REVIEW, FinalRunState.FINAL, FinalRunState.UPHELD)
    if invalidate:
        new_state = FinalRunState.INVALIDATED
    else:
        new_state = FinalRunState.UPHELD
        allowed = (FinalRunState.REVIEW,)
    written = FinalRun.objects.filter(pk=final_run.pk, state__in=allowed).update(
        state=new_state, reason=reason[:4000], decided_by=organizer, decided_at=timezone.now()
    )
    if not written:
        raise ContestError(f"This result is {final_run.get_state_display().lower()}; it cannot be changed so.")
    final_run.refresh_from_db()
    return final_run


def answer_review(final_run: FinalRun, user: Any, text: str) -> FinalRun:
    """The participant's one written answer to an invalidation (kept with the evidence)."""
    if not Member.objects.filter(participant_id=final_run.participant_id, user=user).exists():
        raise ContestError("Only the participant answers.")
    text = text.strip()
    if not text:
        raise ContestError("The answer is empty.")
    written = FinalRun.objects.filter(
        pk=final_run.pk, state=FinalRunState.INVALIDATED, answered_at__isnull=True
    ).update(answer=text[:4000], answered_at=timezone.now())
    if not written:
        raise ContestError("An answer is possible once, to an invalidated result.")
    final_run.refresh_from_db()
    return final_run
