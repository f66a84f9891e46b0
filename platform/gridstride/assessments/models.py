"""Hiring assessments: organizations and their members, assessments, invitations, candidates, and
what the candidate's session leaves behind (code snapshots, page events, webhook deliveries).

Everything an organization owns is reached through it (gridstride.assessments.access), so a
member of another organization gets a 404 for every page, API route and file.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from django.conf import settings
from django.db import models

from gridstride.lib import windows


class Role(models.TextChoices):
    OWNER = "owner"  # edits assessments, invites, manages members
    REVIEWER = "reviewer"  # reads reports, comparisons, exports


class Organization(models.Model):
    slug = models.SlugField(max_length=48, unique=True)
    name = models.CharField(max_length=120)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.slug


class Membership(models.Model):
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.REVIEWER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["organization", "user"], name="one_membership_per_org")]

    def __str__(self) -> str:
        return f"{self.user_id}@{self.organization_id} ({self.role})"


class Assessment(models.Model):
    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="assessments")
    title = models.CharField(max_length=200)
    # Markdown, rendered through lib/markdown (sanitized).
    instructions = models.TextField(blank=True, default="")
    problems = models.ManyToManyField("catalog.Problem", related_name="+")
    languages = models.JSONField(default=list)  # empty: each problem's own languages
    gpu_model = models.CharField(max_length=32, default="cpu")
    duration_minutes = models.PositiveIntegerField(default=90)
    opens_at = models.DateTimeField(null=True, blank=True)
    closes_at = models.DateTimeField(null=True, blank=True)
    # The applicant-tracking system's endpoint, called when a candidate finishes (HMAC-SHA256 signed).
    webhook_url = models.URLField(blank=True, default="")
    webhook_secret = models.CharField(max_length=64, blank=True, default="")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.title

    @property
    def duration(self) -> timedelta:
        return timedelta(minutes=self.duration_minutes)

    @property
    def window(self) -> windows.Window:
        return windows.Window(self.opens_at, self.closes_at)

    @property
    def context_key(self) -> str:
        """Submission.context_key of this assessment's submissions."""
        return str(self.public_id)


class Invitation(models.Model):
    assessment = models.ForeignKey(Assessment, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField()
    name = models.CharField(max_length=120, blank=True, default="")
    # Part of the signed link; a resend draws a new one, so earlier links stop working.
    nonce = models.CharField(max_length=32)
    expires_at = models.DateTimeField()
    extra_pct = models.PositiveSmallIntegerField(default=0)
    sent_count = models.PositiveSmallIntegerField(default=0)
    last_sent_at = models.DateTimeField(null=True, blank=True)
    used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [models.UniqueConstraint(fields=["assessment", "email"], name="one_invitation_per_email")]

    def __str__(self) -> str:
        return f"{self.email} -> {self.assessment_id}"

    def state(self, now: datetime) -> str:
        if self.revoked_at:
            return "revoked"
        if self.used_at:
            return "accepted"
        if now >= self.expires_at:
            return "expired"
        return "sent" if self.sent_count else "created"


class Candidate(models.Model):
    assessment = models.ForeignKey(Assessment, on_delete=models.CASCADE, related_name="candidates")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assessment_seats")
    invitation = models.OneToOneField(Invitation, null=True, on_delete=models.SET_NULL, related_name="candidate")
    # gridstride.lib.variation: the secret seed behind this candidate's inputs and hidden shapes.
    participant_seed = models.BigIntegerField()
    extra_pct = models.PositiveSmallIntegerField(default=0)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    finish_reason = models.CharField(max_length=16, blank=True, default="")  # "early" or "time"
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [models.UniqueConstraint(fields=["assessment", "user"], name="one_seat_per_user")]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.assessment_id}"


class SnapshotKind(models.TextChoices):
    TYPED = "typed"
    RUN = "run"
    SUBMIT = "submit"


class Snapshot(models.Model):
    """The candidate's code at one moment (debounced while typing, and at every run)."""

    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="snapshots")
    problem = models.ForeignKey("catalog.Problem", on_delete=models.CASCADE, related_name="+")
    language = models.CharField(max_length=16)
    source = models.TextField()
    kind = models.CharField(max_length=8, choices=SnapshotKind.choices, default=SnapshotKind.TYPED)
    submission = models.ForeignKey("submissions.Submission", null=True, on_delete=models.SET_NULL, related_name="+")
    at = models.DateTimeField()

    class Meta:
        ordering = ["at", "id"]
        indexes = [models.Index(fields=["candidate", "problem", "at"])]


class EventKind(models.TextChoices):
    PASTE = "paste"
    AWAY = "away"  # the page was hidden or lost focus for `seconds`


class PageEvent(models.Model):
    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="events")
    problem = models.ForeignKey("catalog.Problem", null=True, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=8, choices=EventKind.choices)
    chars = models.PositiveIntegerField(default=0)
    seconds = models.FloatField(default=0.0)
    at = models.DateTimeField()

    class Meta:
        ordering = ["at", "id"]


class WebhookDelivery(models.Model):
    """One finished candidate's notification to the assessment's webhook, with every attempt logged."""

    assessment = models.ForeignKey(Assessment, on_delete=models.CASCADE, related_name="deliveries")
    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="deliveries")
    url = models.URLField()
    body = models.TextField()
    attempts = models.PositiveSmallIntegerField(default=0)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")
    delivered_at = models.DateTimeField(null=True, blank=True)
    log = models.JSONField(default=list)  # [{"at": iso, "status": int | None, "error": str}]
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
