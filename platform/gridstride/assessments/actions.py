"""State changes of assessments. Views, the API and tasks call these, never the ORM directly.

The clock is passed in (`now`) by every function that decides by time, so the deadline rules are
tested at fixed instants; views pass gridstride.lib.clock.now().
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.utils.text import slugify

from gridstride.assessments.models import (
    Assessment,
    Candidate,
    EventKind,
    Invitation,
    Membership,
    Organization,
    PageEvent,
    Role,
    Snapshot,
    SnapshotKind,
)
from gridstride.catalog.models import Problem
from gridstride.lib import variation, windows
from gridstride.submissions import actions as pipeline
from gridstride.submissions.models import Context, Mode, Status, Submission

INVITE_SALT = "gridstride.assessments.invitation"
INVITE_DAYS = 14
MAX_EXTRA_PCT = 200
# A typed snapshot closer than this to the previous one replaces nothing: the page debounces too.
SNAPSHOT_MIN_INTERVAL = timedelta(seconds=2)
MAX_SNAPSHOTS = 2000


class AssessmentError(Exception):
    """Shown to the user as it is."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# --- organizations ----------------------------------------------------------------------------


@transaction.atomic
def create_organization(user: Any, name: str, slug: str = "") -> Organization:
    slug = slugify(slug or name)[:48]
    if not slug:
        raise AssessmentError("Give the organization a name.")
    if Organization.objects.filter(slug=slug).exists():
        raise AssessmentError(f"The name {slug!r} is taken; choose another.")
    org = Organization.objects.create(slug=slug, name=name.strip()[:120] or slug)
    Membership.objects.create(organization=org, user=user, role=Role.OWNER)
    return org


def add_member(org: Organization, who: str, role: str) -> Membership:
    if role not in Role.values:
        raise AssessmentError(f"Unknown role {role!r}.")
    users = get_user_model().objects
    user = users.filter(username=who).first() or users.filter(email__iexact=who).first()
    if user is None:
        raise AssessmentError(f"No account {who!r}: they need to sign up first.")
    member, _ = Membership.objects.update_or_create(organization=org, user=user, defaults={"role": role})
    return member


# --- assessments ------------------------------------------------------------------------------


def save_assessment(
    org: Organization, user: Any, fields: dict[str, Any], problems: list[Problem], assessment: Assessment | None = None
) -> Assessment:
    """Create or update an assessment from validated form fields."""
    if not problems:
        raise AssessmentError("Choose at least one problem.")
    if any(not p.is_active for p in problems):
        raise AssessmentError("A chosen problem is no longer available.")
    gpu = fields.get("gpu_model") or settings.JUDGE_DEFAULT_GPU
    if gpu not in {settings.JUDGE_DEFAULT_GPU, *settings.JUDGE_GPU_MODELS}:
        raise AssessmentError(f"No judge here runs on {gpu!r}.")
    with transaction.atomic():
        if assessment is None:
            assessment = Assessment(organization=org, created_by=user, webhook_secret=secrets.token_hex(24))
        for key in ("title", "instructions", "languages", "duration_minutes", "opens_at", "closes_at", "webhook_url"):
            if key in fields:
                setattr(assessment, key, fields[key])
        assessment.gpu_model = gpu
        assessment.save()
        assessment.problems.set(problems)
    return assessment


# --- invitations ------------------------------------------------------------------------------


def invite_token(invitation: Invitation) -> str:
    return signing.dumps({"i": invitation.pk, "n": invitation.nonce}, salt=INVITE_SALT, compress=True)


def find_invitation(token: str, now: datetime) -> tuple[Invitation | None, str]:
    """The invitation a link names and "" when it may be accepted now, else why not."""
    try:
        data = signing.loads(token, salt=INVITE_SALT)
    except signing.BadSignature:
        return None, "This link is not valid. Check that it was copied whole, or ask for a new one."
    invitation = (
        Invitation.objects.select_related("assessment", "assessment__organization").filter(pk=data.get("i")).first()
    )
    if invitation is None or not secrets.compare_digest(str(data.get("n", "")), invitation.nonce):
        return None, "This link was replaced by a newer one, or withdrawn. Use the latest email, or ask for a new one."
    state = invitation.state(now)
    if state == "revoked":
        return invitation, "This invitation was withdrawn by the hiring team."
    if state == "accepted":
        return invitation, "This invitation was already used. Log in with the account it created to continue."
    if state == "expired":
        return (
            invitation,
            f"This invitation expired on {invitation.expires_at:%Y-%m-%d %H:%M} UTC. Ask the hiring team to resend it.",
        )
    return invitation, ""


def invite(
    assessment: Assessment, email: str, *, name: str = "", extra_pct: int = 0, base_url: str, now: datetime
) -> Invitation:
    _check_extra(extra_pct)
    email = email.strip().lower()
    if Invitation.objects.filter(assessment=assessment, email=email).exists():
        raise AssessmentError(f"{email} is already invited; resend their invitation instead.")
    try:
        with transaction.atomic():
            invitation = Invitation.objects.create(
                assessment=assessment,
                email=email,
                name=name.strip()[:120],
                nonce=secrets.token_hex(16),
                expires_at=now + timedelta(days=INVITE_DAYS),
                extra_pct=extra_pct,
            )
    except IntegrityError:
        raise AssessmentError(f"{email} is already invited; resend their invitation instead.") from None
    _send_invitation(invitation, base_url, now)
    return invitation


def resend(invitation: Invitation, *, base_url: str, now: datetime) -> Invitation:
    """A new link (earlier ones stop working) with a fresh expiry, sent again."""
    invitation.refresh_from_db()
    if invitation.used_at or invitation.revoked_at:
        raise AssessmentError("Only an invitation that is not used or withdrawn can be resent.")
    invitation.nonce = secrets.token_hex(16)
    invitation.expires_at = now + timedelta(days=INVITE_DAYS)
    invitation.save(update_fields=["nonce", "expires_at"])
    _send_invitation(invitation, base_url, now)
    return invitation


def revoke(invitation: Invitation, now: datetime) -> bool:
    """Withdraw an invitation that was not used yet (a seat already taken stays)."""
    rows = Invitation.objects.filter(pk=invitation.pk, used_at__isnull=True, revoked_at__isnull=True)
    if not rows.update(revoked_at=now):
        return False
    invitation.revoked_at = now
    return True


def _send_invitation(invitation: Invitation, base_url: str, now: datetime) -> None:
    from django.urls import reverse

    assessment = invitation.assessment
    link = base_url.rstrip("/") + reverse("assessments:accept", args=[invite_token(invitation)])
    context = {
        "invitation": invitation,
        "assessment": assessment,
        "organization": assessment.organization,
        "link": link,
        "duration_minutes": int(windows.allowed(assessment.duration, invitation.extra_pct).total_seconds() // 60),
    }
    message = EmailMultiAlternatives(
        subject=f"{assessment.organization.name}: {assessment.title} on Gridstride",
        body=render_to_string("assessments/email_invitation.txt", context),
        to=[invitation.email],
    )
    message.attach_alternative(render_to_string("assessments/email_invitation.html", context), "text/html")
    message.send()
    Invitation.objects.filter(pk=invitation.pk).update(sent_count=invitation.sent_count + 1, last_sent_at=now)
    invitation.sent_count += 1
    invitation.last_sent_at = now


def create_candidate_account(invitation: Invitation, username: str, password: str) -> Any:
    """A new account for the invited address (the link proves the address)."""
    User = get_user_model()
    if User.objects.filter(username=username).exists():
        raise AssessmentError(f"The username {username!r} is taken; choose another, or log in if it is yours.")
    return User.objects.create_user(username=username, email=invitation.email, password=password)


def accept(invitation: Invitation, user: Any, now: datetime) -> Candidate:
    """Bind the invitation to the user: single use (a conditional update decides a race)."""
    with transaction.atomic():
        taken = Invitation.objects.filter(
            pk=invitation.pk, used_at__isnull=True, revoked_at__isnull=True, expires_at__gt=now
        ).update(used_at=now)
        if not taken:
            raise AssessmentError("This invitation can no longer be used.")
        existing = Candidate.objects.filter(assessment=invitation.assessment, user=user).first()
        if existing is not None:
            raise AssessmentError("This account already has a seat in this assessment.")
        return Candidate.objects.create(
            assessment=invitation.assessment,
            user=user,
            invitation=invitation,
            participant_seed=variation.new_participant_seed(),
            extra_pct=invitation.extra_pct,
        )


def _check_extra(pct: int) -> None:
    if not 0 <= pct <= MAX_EXTRA_PCT:
        raise AssessmentError(f"Extra time is a percentage from 0 to {MAX_EXTRA_PCT}.")


def set_extra_time(target: Candidate | Invitation, pct: int) -> None:
    """Accommodations, before or during the session (a finished session keeps its record)."""
    _check_extra(pct)
    if isinstance(target, Candidate) and target.finished_at:
        raise AssessmentError("This candidate has finished; their time is final.")
    type(target).objects.filter(pk=target.pk).update(extra_pct=pct)
    target.extra_pct = pct
    if isinstance(target, Invitation) and hasattr(target, "candidate"):
        set_extra_time(target.candidate, pct)


# --- the candidate's clock --------------------------------------------------------------------


def submissions_of(candidate: Candidate) -> Any:
    return Submission.objects.filter(
        owner_id=candidate.user_id, context=Context.ASSESSMENT, context_key=candidate.assessment.context_key
    )


def queue_credit(
    candidate: Candidate, now: datetime, rows: list[tuple[datetime, float | None, str]] | None = None
) -> timedelta:
    """Time the candidate's jobs waited for a judge beyond the grace (lib/windows.queue_credit).
    `rows` are (created_at, queue_wait_s, status) of their submissions when the caller has them."""
    if rows is None:
        rows = list(submissions_of(candidate).values_list("created_at", "queue_wait_s", "status"))
    waits: list[tuple[datetime, datetime | None]] = []
    for created_at, wait_s, status in rows:
        if wait_s is not None:
            waits.append((created_at, created_at + timedelta(seconds=wait_s)))
        elif status == Status.QUEUED:
            waits.append((created_at, None))
    return windows.queue_credit(waits, now)


def deadline_of(candidate: Candidate, now: datetime, credit: timedelta | None = None) -> datetime | None:
    if candidate.started_at is None:
        return None
    return windows.deadline(
        candidate.started_at,
        candidate.assessment.duration,
        extra_pct=candidate.extra_pct,
        credit=queue_credit(candidate, now) if credit is None else credit,
    )


def state_of(candidate: Candidate, now: datetime, credit: timedelta | None = None) -> str:
    """not_started, running or finished (a running session past its deadline counts as finished)."""
    if candidate.finished_at:
        return "finished"
    if candidate.started_at is None:
        return "not_started"
    deadline = deadline_of(candidate, now, credit)
    return "running" if deadline is not None and windows.is_before(deadline, now) else "finished"


def start(candidate: Candidate, now: datetime) -> Candidate:
    if candidate.started_at is not None:
        return candidate
    reason = candidate.assessment.window.not_open_reason(now)
    if reason:
        raise AssessmentError(reason)
    Candidate.objects.filter(pk=candidate.pk, started_at__isnull=True).update(started_at=now)
    candidate.refresh_from_db()
    return candidate


def submit(
    candidate: Candidate, problem: Problem, *, language: str, source: str, mode: str, now: datetime
) -> Submission:
    """A Run or Submit in the session. The server's clock decides: at or after the deadline it is
    refused; before, it is taken and counts whenever it is judged."""
    assessment = candidate.assessment
    state = state_of(candidate, now)
    if state == "not_started":
        raise AssessmentError("Start the assessment first.")
    if state == "finished":
        if candidate.finished_at is None:
            finish(candidate, "time", now)
        raise AssessmentError(
            "Time is up: this assessment has ended for you, so this was not sent. Your earlier runs count."
        )
    if mode not in (Mode.RUN, Mode.SUBMIT):
        raise AssessmentError("Mode must be run or submit.")
    if not assessment.problems.filter(pk=problem.pk).exists():
        raise AssessmentError("That problem is not part of this assessment.")
    if assessment.languages and language not in assessment.languages:
        raise AssessmentError(f"This assessment takes {', '.join(assessment.languages)}.")
    spec = problem.current_version.spec if problem.current_version else {}
    hidden = (
        variation.hidden_shapes(spec, candidate.participant_seed, assessment.gpu_model) if mode == Mode.SUBMIT else []
    )
    try:
        submission = pipeline.create_submission(
            owner=candidate.user,
            problem=problem,
            language=language,
            source=source,
            mode=mode,
            context=Context.ASSESSMENT,
            context_key=assessment.context_key,
            gpu_model=assessment.gpu_model,
            variation=variation.job_fields(candidate.participant_seed, hidden),
            allow_hidden=True,
        )
    except pipeline.SubmissionRefused as exc:
        raise AssessmentError(exc.message) from None
    Snapshot.objects.create(
        candidate=candidate,
        problem=problem,
        language=language,
        source=source,
        kind=SnapshotKind.RUN if mode == Mode.RUN else SnapshotKind.SUBMIT,
        submission=submission,
        at=now,
    )
    return submission


def snapshot(candidate: Candidate, problem: Problem, *, language: str, source: str, now: datetime) -> bool:
    """Keep the code as typed (the page sends it debounced). False when nothing new was kept."""
    if state_of(candidate, now) != "running" or not candidate.assessment.problems.filter(pk=problem.pk).exists():
        return False
    if len(source.encode()) > settings.MAX_SOURCE_BYTES:
        return False
    last = Snapshot.objects.filter(candidate=candidate, problem=problem).order_by("-at", "-id").first()
    if last is not None and (last.source == source or now - last.at < SNAPSHOT_MIN_INTERVAL):
        return False
    if Snapshot.objects.filter(candidate=candidate).count() >= MAX_SNAPSHOTS:
        return False
    Snapshot.objects.create(candidate=candidate, problem=problem, language=language, source=source, at=now)
    return True


def record_event(
    candidate: Candidate,
    kind: str,
    *,
    now: datetime,
    chars: int = 0,
    seconds: float = 0.0,
    problem: Problem | None = None,
) -> bool:
    if kind not in EventKind.values or candidate.started_at is None or candidate.finished_at is not None:
        return False
    PageEvent.objects.create(
        candidate=candidate,
        problem=problem,
        kind=kind,
        chars=max(0, min(int(chars), 10**7)),
        seconds=max(0.0, min(float(seconds), 86400.0)),
        at=now,
    )
    return True


def finish(candidate: Candidate, reason: str, now: datetime) -> bool:
    """End the session (early by the candidate, or at the deadline). Once; the webhook follows."""
    if candidate.started_at is None:
        raise AssessmentError("This assessment was not started.")
    when = now
    if reason == "time":
        deadline = deadline_of(candidate, now)
        when = min(now, deadline) if deadline else now
    with transaction.atomic():
        done = Candidate.objects.filter(pk=candidate.pk, finished_at__isnull=True).update(
            finished_at=when, finish_reason=reason
        )
        if not done:
            return False
        candidate.finished_at, candidate.finish_reason = when, reason
        pk = candidate.pk
        transaction.on_commit(lambda: _announce_finished(pk))
    return True


def _announce_finished(pk: int) -> None:
    from gridstride.assessments import webhooks

    webhooks.queue_delivery(Candidate.objects.select_related("assessment").get(pk=pk))


def close_overdue(now: datetime) -> int:
    """Finish every running session past its deadline (the periodic task; pages do it on sight too)."""
    closed = 0
    running = Candidate.objects.select_related("assessment").filter(started_at__isnull=False, finished_at__isnull=True)
    for candidate in running.iterator():
        if state_of(candidate, now) == "finished" and finish(candidate, "time", now):
            closed += 1
    return closed
