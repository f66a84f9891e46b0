"""Contests: a time window, problems, participants (people or teams), their submissions, and the
final re-run that decides which live results stand (docs/contests.md).

Every state change goes through contests/actions.py. A submission enters a contest through an
Entry row written in the same transaction as the submission itself, so the board never has to
guess which submissions belong to whom.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import models


class Registration(models.TextChoices):
    OPEN = "open", "Open to everyone"
    INVITE = "invite", "By invite code"


class FinalState(models.TextChoices):
    NOT_STARTED = "", "Not started"
    RUNNING = "running", "Re-running"
    DONE = "done", "Done"


class Contest(models.Model):
    slug = models.SlugField(max_length=48, unique=True)
    title = models.CharField(max_length=200)
    rules = models.TextField(blank=True, default="")  # Markdown, rendered through lib/markdown
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()
    # The board others see stops moving this many minutes before the end (0: never frozen).
    freeze_minutes = models.PositiveIntegerField(default=0)
    gpu_models = models.JSONField(default=list)
    languages = models.JSONField(default=list)  # empty: every language each problem takes
    registration = models.CharField(max_length=8, choices=Registration.choices, default=Registration.OPEN)
    invite_code = models.CharField(max_length=64, blank=True, default="")
    # 1: individuals; more: teams of up to this many, one captain each.
    team_size = models.PositiveSmallIntegerField(default=1)
    # Submits (full judgings) per participant per rolling hour; 0: no limit.
    hourly_limit = models.PositiveIntegerField(default=0)
    scoring = models.CharField(max_length=32, default="geomean_runtime")
    # Extra relative slack (percent) on top of the reports' confidence intervals when the final
    # re-run's time is compared with the live one.
    rerun_tolerance_pct = models.FloatField(default=3.0)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    organizers = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="organized_contests")
    final_state = models.CharField(max_length=8, choices=FinalState.choices, blank=True, default="")
    final_started_at = models.DateTimeField(null=True, blank=True)
    final_done_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-starts_at"]
        indexes = [models.Index(fields=["ends_at", "final_state"])]

    def __str__(self) -> str:
        return self.slug

    @property
    def freeze_at(self) -> datetime | None:
        if not self.freeze_minutes:
            return None
        return max(self.starts_at, self.ends_at - timedelta(minutes=self.freeze_minutes))

    @property
    def duration(self) -> timedelta:
        return self.ends_at - self.starts_at

    @property
    def is_team_contest(self) -> bool:
        return self.team_size > 1


class ContestProblem(models.Model):
    contest = models.ForeignKey(Contest, on_delete=models.CASCADE, related_name="contest_problems")
    problem = models.ForeignKey("catalog.Problem", on_delete=models.PROTECT, related_name="+")
    label = models.CharField(max_length=8)  # "A", "B", ...
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order", "label"]
        constraints = [
            models.UniqueConstraint(fields=["contest", "problem"], name="contest_problem_once"),
            models.UniqueConstraint(fields=["contest", "label"], name="contest_problem_label_once"),
        ]

    def __str__(self) -> str:
        return f"{self.contest_id}:{self.label}"


class Participant(models.Model):
    """One competitor: a person, or a team with a captain. Virtual ones take a past contest in
    their own window and never enter the official results."""

    contest = models.ForeignKey(Contest, on_delete=models.CASCADE, related_name="participants")
    name = models.CharField(max_length=64)
    captain = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    # Teammates join with this code (teams only); it is shown to the team's members.
    join_code = models.CharField(max_length=32, blank=True, default="")
    is_virtual = models.BooleanField(default=False)
    # The participant's secret judging seed (gridstride.lib.variation): every live judging of
    # their code gets inputs no other participant gets. Never shown on a page or in the API.
    participant_seed = models.BigIntegerField(default=0)
    # A virtual participant's own window; None for official participants (the contest's).
    window_start = models.DateTimeField(null=True, blank=True)
    window_end = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [models.UniqueConstraint(fields=["contest", "name", "is_virtual"], name="participant_name_once")]

    def __str__(self) -> str:
        return f"{self.contest_id}:{self.name}"

    def window(self, contest: Contest) -> tuple[datetime, datetime]:
        if self.is_virtual and self.window_start and self.window_end:
            return self.window_start, self.window_end
        return contest.starts_at, contest.ends_at


class Member(models.Model):
    contest = models.ForeignKey(Contest, on_delete=models.CASCADE, related_name="members")
    participant = models.ForeignKey(Participant, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="contest_memberships")
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["contest", "user"], name="one_participation_per_user")]

    def __str__(self) -> str:
        return f"{self.participant_id}:{self.user_id}"


class EntryKind(models.TextChoices):
    LIVE = "live"
    FINAL = "final", "Final re-run"
    PRACTICE = "practice"


class Entry(models.Model):
    """A submission made inside a contest, and for whom."""

    contest = models.ForeignKey(Contest, on_delete=models.CASCADE, related_name="entries")
    participant = models.ForeignKey(Participant, on_delete=models.CASCADE, related_name="entries")
    submission = models.OneToOneField("submissions.Submission", on_delete=models.CASCADE, related_name="contest_entry")
    kind = models.CharField(max_length=8, choices=EntryKind.choices, default=EntryKind.LIVE)

    class Meta:
        indexes = [models.Index(fields=["contest", "kind", "participant"])]

    def __str__(self) -> str:
        return f"{self.contest_id}:{self.participant_id}:{self.submission_id}"


class FinalRunState(models.TextChoices):
    JUDGING = "judging"
    FINAL = "final"
    REVIEW = "review", "Under review"
    UPHELD = "upheld", "Upheld after review"
    INVALIDATED = "invalidated"


COUNTED_STATES = (FinalRunState.FINAL, FinalRunState.UPHELD)


class FinalRun(models.Model):
    """The re-run of one participant's best live submission on one problem and GPU model.

    The unique key and the one rerun submission per row make the final re-run idempotent: a
    second start finds the row and sends nothing, and the first recorded judgement of the rerun
    decides the row once (a conditional UPDATE from `judging`).
    """

    contest = models.ForeignKey(Contest, on_delete=models.CASCADE, related_name="final_runs")
    participant = models.ForeignKey(Participant, on_delete=models.CASCADE, related_name="final_runs")
    problem = models.ForeignKey("catalog.Problem", on_delete=models.PROTECT, related_name="+")
    gpu_model = models.CharField(max_length=32)
    live = models.ForeignKey("submissions.Submission", on_delete=models.PROTECT, related_name="+")
    rerun = models.OneToOneField(
        "submissions.Submission", on_delete=models.PROTECT, related_name="final_run", null=True, blank=True
    )
    state = models.CharField(max_length=12, choices=FinalRunState.choices, default=FinalRunState.JUDGING)
    # What the judge and the comparison found: verdict, timing agreement, similarity, reasons.
    signals = models.JSONField(default=dict, blank=True)
    judged_at = models.DateTimeField(null=True, blank=True)
    # An organizer's decision (upheld or invalidated) and the reason the participant sees.
    reason = models.TextField(blank=True, default="")
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    # The participant's one written answer to an invalidation.
    answer = models.TextField(blank=True, default="")
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["contest", "participant", "problem", "gpu_model"], name="one_final_run_per_result"
            )
        ]
        indexes = [models.Index(fields=["contest", "state"])]

    def __str__(self) -> str:
        return f"{self.contest_id}:{self.participant_id}:{self.problem_id}/{self.gpu_model} {self.state}"
