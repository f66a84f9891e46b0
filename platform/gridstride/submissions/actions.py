"""State changes of submissions. Views, the API, tasks and commands call these, never the ORM.

The database decides every race: each write that moves a submission is a conditional UPDATE on
its attempt (and state), so a late, repeated or stale message changes nothing. Jobs are
published only after the transaction that created or re-queued them commits.
"""

from __future__ import annotations

import logging
import re
import uuid
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from gridstride.catalog.models import Problem
from gridstride.submissions import broker, pools
from gridstride.submissions.models import (
    PRIORITY,
    Context,
    EventKind,
    Language,
    Mode,
    Status,
    Submission,
    SubmissionEvent,
    Verdict,
)
from gridstride.submissions.signals import submission_judged
from judge.protocol import JudgeJob, Progress, Report, source_text_fault, storable, storable_text

log = logging.getLogger(__name__)

# The site's modes and the judge's: "Run" checks correctness, "Submit" also benchmarks.
JOB_MODE = {Mode.RUN: "test", Mode.SUBMIT: "benchmark", Mode.PROFILE: "profile"}
RUNNING = (Status.COMPILING, Status.TESTING, Status.BENCHMARKING, Status.PROFILING)
STAGE_STATUS = {s.value: s for s in RUNNING}
GPU_MODEL_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")
# A new submission's own on_commit publish gets this long before the sweeper sends it instead.
DISPATCH_GRACE = timedelta(seconds=10)


class SubmissionRefused(Exception):
    """The site will not take this submission; the message is shown to the user as it is."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# --- creating ---------------------------------------------------------------------------------


def create_submission(
    *,
    owner: Any,
    problem: Problem | str,
    language: str,
    source: str,
    mode: str,
    context: str = Context.PRACTICE,
    gpu_model: str | None = None,
    context_key: str = "",
    priority: int | None = None,
    rate_limited: bool = True,
    variation: dict[str, Any] | None = None,
    allow_hidden: bool = False,
) -> Submission:
    """Store a submission and queue its judging. Raises SubmissionRefused with a clear message.

    `priority` overrides the context's (a contest's final re-run queues as a rejudge);
    `rate_limited=False` is for submissions the site itself makes on a user's behalf;
    `variation` is a participant's judging variation (gridstride.lib.variation.job_fields);
    `allow_hidden` is for callers that checked the user may use a hidden problem (an assessment
    or contest they belong to)."""
    if isinstance(problem, str):
        found = Problem.objects.filter(slug=problem).first()
        if found is None:
            raise SubmissionRefused(f"There is no problem called {problem!r}.")
        problem = found
    version = problem.current_version
    if version is None or not problem.is_active or (problem.is_hidden and not allow_hidden):
        if problem.is_hidden:
            raise SubmissionRefused(f"There is no problem called {problem.slug!r}.")
        raise SubmissionRefused(f"{problem.slug} is not open for submissions.")
    if mode not in Mode.values:
        raise SubmissionRefused(f"Unknown mode {mode!r}: use run, submit or profile.")
    if context not in Context.values:
        raise SubmissionRefused(f"Unknown context {context!r}.")
    if language not in Language.values:
        raise SubmissionRefused(f"Unknown language {language!r}: use one of {', '.join(Language.values)}.")
    if problem.languages and language not in problem.languages:
        raise SubmissionRefused(
            f"{problem.slug} does not take {Language(language).label}; it takes "
            + ", ".join(Language(x).label for x in problem.languages if x in Language.values)
            + "."
        )
    fault = source_text_fault(source)
    if fault:
        raise SubmissionRefused(fault)
    size = len(source.encode("utf-8"))
    if size > settings.MAX_SOURCE_BYTES:
        raise SubmissionRefused(
            f"The source is {size / 1024:.1f} KiB; the limit is {settings.MAX_SOURCE_BYTES // 1024} KiB. "
            "Remove unused code or large tables and try again."
        )
    if not source.strip():
        raise SubmissionRefused("The source is empty.")
    # A problem needing several GPUs goes only to judges that hold that many (pools.py).
    need = pools.gpus_needed(version.spec)
    allowed = pools.models_for(need)
    if not allowed:
        raise SubmissionRefused(f"{problem.slug}: {pools.unavailable_message(need)}")
    gpu = gpu_model or allowed[0]
    if not GPU_MODEL_RE.match(gpu) or gpu not in allowed:
        held = f" holding {need} GPUs" if need > 1 else ""
        raise SubmissionRefused(f"No judge{held} here runs on {gpu!r}; choose one of: {', '.join(sorted(allowed))}.")

    now = timezone.now()
    with transaction.atomic():
        # Lock the user's row so two requests at once cannot both pass the rate limit (PostgreSQL;
        # SQLite serialises writers anyway).
        get_user_model().objects.select_for_update().filter(pk=owner.pk).first()
        if rate_limited:
            _check_rate_limit(owner, now)
        submission = Submission.objects.create(
            owner=owner,
            problem=problem,
            problem_version=version,
            language=language,
            source=source,
            mode=mode,
            context=context,
            context_key=context_key,
            priority=PRIORITY[context] if priority is None else priority,
            gpu_model=gpu,
            queued_at=now,
            variation=variation or {},
        )
        _event(submission, EventKind.CREATED, f"queue {submission.queue}, priority {submission.priority}")
        pk = submission.pk
        transaction.on_commit(lambda: dispatch(pk))
    return submission


def _check_rate_limit(owner: Any, now: datetime) -> None:
    limit = settings.SUBMISSIONS_PER_MINUTE
    if limit <= 0:
        return
    recent = list(
        Submission.objects.filter(owner=owner, created_at__gte=now - timedelta(minutes=1))
        .order_by("created_at")
        .values_list("created_at", flat=True)[: limit + 1]
    )
    if len(recent) >= limit:
        wait_s = max(1, int((recent[len(recent) - limit] + timedelta(minutes=1) - now).total_seconds()) + 1)
        raise SubmissionRefused(
            f"You have sent {len(recent)} submissions in the last minute (the limit is {limit} a minute). "
            f"Try again in {wait_s} s."
        )


def job_for(submission: Submission) -> JudgeJob:
    return JudgeJob(
        submission_id=str(submission.public_id),
        attempt=submission.attempt,
        problem=submission.problem.slug,
        language=submission.language,
        source=submission.source,
        mode=JOB_MODE[Mode(submission.mode)],
        # Public and stable per submission; the judge mixes in a secret the code never sees.
        seed=submission.public_id.int & 0x7FFFFFFF,
        content_hash=submission.problem_version.content_hash,
        **(submission.variation or {}),
    )


def dispatch(pk: int) -> bool:
    """Publish the current attempt's job once. Safe to call again: only one caller claims it."""
    now = timezone.now()
    submission = (
        Submission.objects.select_related("problem", "problem_version")
        .filter(pk=pk, status=Status.QUEUED, dispatched_at__isnull=True)
        .first()
    )
    if submission is None:
        return False
    try:
        # One transaction: the claim is undone if publishing fails, and one commit, not three.
        with transaction.atomic():
            claimed = Submission.objects.filter(
                pk=pk, attempt=submission.attempt, status=Status.QUEUED, dispatched_at__isnull=True
            ).update(dispatched_at=now)
            if not claimed:
                return False
            broker.send_job(
                asdict(job_for(submission)),
                queue=submission.queue,
                priority=submission.priority,
                task_id=submission.task_id,
            )
            _event(submission, EventKind.DISPATCHED, submission.queue)
    except Exception as exc:
        # The sweeper publishes it again once the broker is back.
        log.warning("publishing %s failed (%s); the sweeper retries", submission.task_id, exc)
        _event(submission, EventKind.DISPATCH_FAILED, str(exc)[:500])
        return False
    return True


# --- recording what judges send ---------------------------------------------------------------


def record_progress(progress: Progress, *, run_id: str = "", worker: str = "", seq: int = 0) -> bool:
    """Apply a judge's stage change or heartbeat; renews the lease. False when ignored.

    `run_id` names one execution of the job: a new one means the broker delivered the attempt
    again (its judge died). `seq` orders events (the judge's clock in ms); older ones are dropped.
    """
    status = STAGE_STATUS.get(progress.stage)
    if status is None:
        return False
    now = timezone.now()
    seq = seq or int(now.timestamp() * 1000)
    with transaction.atomic():
        return _apply_progress(progress, status, now, run_id, worker, seq)


def _apply_progress(progress: Progress, status: Status, now: datetime, run_id: str, worker: str, seq: int) -> bool:
    current = Submission.objects.filter(public_id=progress.submission_id, attempt=progress.attempt).exclude(
        status=Status.DONE
    )
    if run_id:
        new_run = (
            current.exclude(run_id=run_id)
            .filter(progress_seq__lt=seq)
            .update(runs=F("runs") + 1, run_id=run_id, worker=worker[:200], started_at=now)
        )
        if new_run:
            submission = Submission.objects.select_related("problem").get(public_id=progress.submission_id)
            if submission.attempt == 1 and submission.queue_wait_s is None and submission.queued_at:
                # The first start of the first attempt: how long the queue kept it (assessments credit it).
                wait = max(0.0, (now - submission.queued_at).total_seconds())
                Submission.objects.filter(pk=submission.pk, queue_wait_s__isnull=True).update(queue_wait_s=wait)
            _event(submission, EventKind.STARTED, f"run {submission.runs} on {worker}")
            if submission.runs > settings.JUDGE_MAX_ATTEMPTS:
                # Judges give up on their own after as many runs on one host; this bounds it across hosts.
                give_up(
                    submission,
                    f"Not judged: the judge worker died {submission.runs - 1} times while running this "
                    "submission (a crash, an out-of-memory kill or a GPU fault); it was given up.",
                )
                return False
    updated = current.filter(progress_seq__lt=seq).update(
        status=status,
        progress={
            "stage": progress.stage,
            "done": progress.done,
            "total": progress.total,
            "detail": storable_text(progress.detail[:500]),
            "elapsed_s": progress.elapsed_s,
        },
        progress_seq=seq,
        lease_expires_at=now + timedelta(seconds=settings.JUDGE_LEASE_S),
    )
    return bool(updated)


def record_report(report: Report) -> bool:
    """Record a judge's final report once. False (and logged) for unknown, stale or final ones."""
    try:
        public_id = uuid.UUID(str(report.submission_id))
    except ValueError:
        public_id = None
    submission = Submission.objects.filter(public_id=public_id).first() if public_id else None
    if submission is None:
        log.warning("report for unknown submission %s ignored", str(report.submission_id)[:80])
        return False
    verdict = report.verdict if report.verdict in Verdict.values else Verdict.INTERNAL_ERROR
    ranked = bool(
        report.ranked
        and verdict == Verdict.ACCEPTED
        and submission.mode != Mode.RUN
        and submission.gpu_model != "cpu"
        and report.score_us is not None
    )
    # Programs' output and judges' messages may hold NUL or surrogates, which PostgreSQL refuses:
    # stored visibly replaced (judge/protocol.py, storable), so no report is lost to its content.
    data = storable(report.to_dict())
    message = str(data["message"])
    now = timezone.now()
    with transaction.atomic():
        written = (
            Submission.objects.filter(pk=submission.pk, attempt=report.attempt)
            .exclude(status=Status.DONE)
            .update(
                status=Status.DONE,
                verdict=verdict,
                message=message[:4000],
                ranked=ranked,
                # Unranked (CPU, Run) times are still shown to their author.
                score_us=report.score_us if verdict == Verdict.ACCEPTED else None,
                sol_pct=report.sol_pct if verdict == Verdict.ACCEPTED else None,
                report=data,
                progress={"stage": "done", "done": 1, "total": 1, "detail": "", "elapsed_s": report.elapsed_s},
                lease_expires_at=None,
                finished_at=now,
            )
        )
        if not written:
            submission.refresh_from_db(fields=["status", "attempt"])
            if submission.attempt != report.attempt:
                why = f"attempt {report.attempt} is not the current attempt {submission.attempt}"
            else:
                why = "already final"
            log.info("report for %s attempt %s ignored: %s", report.submission_id, report.attempt, why)
            _event(
                submission, EventKind.IGNORED, f"attempt {report.attempt} ({data['verdict']}): {why}", report.attempt
            )
            return False
        _event(submission, EventKind.RECORDED, f"{verdict} {message[:200]}".strip(), report.attempt)
        pk = submission.pk
        transaction.on_commit(lambda: _announce(pk))
    return True


def _announce(pk: int) -> None:
    submission_judged.send(sender=Submission, submission=Submission.objects.get(pk=pk))


# --- queue position ---------------------------------------------------------------------------


def queue_position(submission: Submission) -> int | None:
    """1 for the next job its GPU queue hands out; None once a judge has it (or it is done).

    The order mirrors the broker's: priority first (lower runs first), then time queued.
    """
    if submission.status != Status.QUEUED or submission.queued_at is None:
        return None
    same = Q(priority=submission.priority)
    ahead = (
        Submission.objects.filter(status=Status.QUEUED, gpu_model=submission.gpu_model)
        .filter(
            Q(priority__lt=submission.priority)
            | (same & Q(queued_at__lt=submission.queued_at))
            | (same & Q(queued_at=submission.queued_at, pk__lt=submission.pk))
        )
        .count()
    )
    return ahead + 1


# --- leases, re-queues, rejudges --------------------------------------------------------------


@dataclass
class SweepResult:
    dispatched: list[str] = field(default_factory=list)
    requeued: list[str] = field(default_factory=list)
    gave_up: list[str] = field(default_factory=list)


def sweep(now: datetime | None = None) -> SweepResult:
    """The periodic safety net: publish what never left, re-queue what lost its judge."""
    now = now or timezone.now()
    result = SweepResult()
    unsent = Submission.objects.filter(
        status=Status.QUEUED, dispatched_at__isnull=True, queued_at__lt=now - DISPATCH_GRACE
    ).values_list("pk", "public_id")
    for pk, public_id in unsent[:500]:
        if dispatch(pk):
            result.dispatched.append(str(public_id))
    stale_queued = Q(status=Status.QUEUED, dispatched_at__lt=now - timedelta(seconds=settings.JUDGE_QUEUED_LEASE_S))
    lost = Q(status__in=RUNNING, lease_expires_at__lt=now)
    for submission in Submission.objects.filter(stale_queued | lost)[:500]:
        why = (
            "its judge stopped sending heartbeats (worker died or host lost)"
            if submission.status != Status.QUEUED
            else f"no judge took it within {settings.JUDGE_QUEUED_LEASE_S} s"
        )
        outcome = requeue(submission, why)
        if outcome == "requeued":
            result.requeued.append(str(submission.public_id))
        elif outcome == "gave_up":
            result.gave_up.append(str(submission.public_id))
    return result


def requeue(submission: Submission, why: str) -> str | None:
    """Start the next attempt, or give up after JUDGE_MAX_ATTEMPTS. Returns what happened."""
    if submission.attempt >= settings.JUDGE_MAX_ATTEMPTS:
        message = (
            f"Not judged: the judge lost this submission {submission.attempt} times ({why}). "
            "This is the judge's fault or a submission that crashes the judge itself; "
            "it was given up to protect the queue."
        )
        return "gave_up" if give_up(submission, message) else None
    return "requeued" if _next_attempt(submission, EventKind.REQUEUED, why) else None


def rejudge(submission: Submission) -> bool:
    """Judge again against the problem as it is now (fixed checks, new shapes, upgraded judge).

    The old verdict stays until the new one is recorded; judges refuse a job whose problem
    version they do not have, so the submission moves to the current version.
    """
    current = Problem.objects.filter(pk=submission.problem_id).values_list("current_version", flat=True).first()
    return _next_attempt(
        submission,
        EventKind.REJUDGE,
        "rejudge requested",
        priority=PRIORITY["rejudge"],
        extra={"problem_version_id": current} if current else None,
    )


def _next_attempt(
    submission: Submission, kind: str, why: str, priority: int | None = None, extra: dict[str, Any] | None = None
) -> bool:
    old_task = submission.task_id
    now = timezone.now()
    changes: dict[str, Any] = {
        "attempt": F("attempt") + 1,
        "status": Status.QUEUED,
        "queued_at": now,
        "dispatched_at": None,
        "lease_expires_at": None,
        "runs": 0,
        "run_id": "",
        "worker": "",
        "progress": {},
        "progress_seq": 0,
    }
    if priority is not None:
        changes["priority"] = priority
    changes.update(extra or {})
    rows = Submission.objects.filter(pk=submission.pk, attempt=submission.attempt)
    if kind != EventKind.REJUDGE:
        rows = rows.exclude(status=Status.DONE)
    with transaction.atomic():
        if not rows.update(**changes):
            return False
        submission.refresh_from_db()
        _event(submission, kind, why)
        pk = submission.pk

        def publish() -> None:
            broker.revoke([old_task])
            dispatch(pk)

        transaction.on_commit(publish)
    log.info("%s %s: attempt %s (%s)", kind, submission.public_id, submission.attempt, why)
    return True


def give_up(submission: Submission, message: str) -> bool:
    """Final internal-error verdict for the current attempt (a final write like any other)."""
    report = Report(
        submission_id=str(submission.public_id),
        attempt=submission.attempt,
        problem=submission.problem.slug,
        language=submission.language,
        mode=JOB_MODE[Mode(submission.mode)],
        verdict=Verdict.INTERNAL_ERROR,
        message=message,
    )
    if not record_report(report):
        return False
    submission.refresh_from_db()
    _event(submission, EventKind.GAVE_UP, message[:500])
    broker.revoke([submission.task_id])
    return True


def _event(submission: Submission, kind: str, detail: str = "", attempt: int | None = None) -> None:
    SubmissionEvent.objects.create(
        submission=submission,
        kind=kind,
        attempt=submission.attempt if attempt is None else attempt,
        detail=detail,
    )
