"""Submissions: what a user sent, where it is in the pipeline, and the judge's verdict."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from gridstride.submissions.pools import gpus_needed
from judge.protocol import judge_queue


class Mode(models.TextChoices):
    RUN = "run", "Run (correctness cases)"
    SUBMIT = "submit", "Submit (full judging)"
    PROFILE = "profile", "Profile"


class Status(models.TextChoices):
    QUEUED = "queued"
    COMPILING = "compiling"
    TESTING = "testing"
    BENCHMARKING = "benchmarking"
    PROFILING = "profiling"
    DONE = "done"


class Verdict(models.TextChoices):
    ACCEPTED = "accepted"
    WRONG_ANSWER = "wrong_answer", "Wrong answer"
    COMPILE_ERROR = "compile_error", "Compile error"
    RUNTIME_ERROR = "runtime_error", "Runtime error"
    TIME_LIMIT = "time_limit", "Time limit exceeded"
    MEMORY_LIMIT = "memory_limit", "Memory limit exceeded"
    REJECTED = "rejected"
    INTERNAL_ERROR = "internal_error", "Internal error"


class Context(models.TextChoices):
    PRACTICE = "practice"
    ASSESSMENT = "assessment"
    CONTEST = "contest"


class Language(models.TextChoices):
    TRITON = "triton", "Triton"
    CUDA = "cuda", "CUDA C++"
    PYTORCH = "pytorch", "PyTorch"
    CUPY = "cupy", "CuPy"


# Lower runs first: assessments over contests over practice over rejudges.
PRIORITY = {"assessment": 0, "contest": 3, "practice": 6, "rejudge": 9}


class Submission(models.Model):
    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submissions")
    problem = models.ForeignKey("catalog.Problem", on_delete=models.PROTECT, related_name="submissions")
    problem_version = models.ForeignKey("catalog.ProblemVersion", on_delete=models.PROTECT, related_name="submissions")
    language = models.CharField(max_length=16, choices=Language.choices)
    source = models.TextField()
    mode = models.CharField(max_length=16, choices=Mode.choices, default=Mode.RUN)
    context = models.CharField(max_length=16, choices=Context.choices, default=Context.PRACTICE)
    priority = models.PositiveSmallIntegerField(default=PRIORITY["practice"])
    # Which queue it was sent to: "h200", "h100", ... or "cpu".
    gpu_model = models.CharField(max_length=32, default="cpu")
    is_public = models.BooleanField(default=False)

    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED, db_index=True)
    verdict = models.CharField(max_length=16, choices=Verdict.choices, blank=True, default="")
    message = models.TextField(blank=True, default="")
    ranked = models.BooleanField(default=False)
    # Geometric mean of per-shape median times (us); lower is better.
    score_us = models.FloatField(null=True, blank=True)
    sol_pct = models.FloatField(null=True, blank=True)
    report = models.JSONField(null=True, blank=True)
    progress = models.JSONField(default=dict, blank=True)

    # Fencing: only a report for the current attempt may write; each re-queue bumps it.
    attempt = models.PositiveIntegerField(default=1)
    # Judge starts seen for this attempt (broker redeliveries after a worker died count here).
    runs = models.PositiveSmallIntegerField(default=0)
    run_id = models.CharField(max_length=64, blank=True, default="")
    worker = models.CharField(max_length=200, blank=True, default="")
    # Progress events can arrive out of order: only a newer one (the judge's send time in ms) applies.
    progress_seq = models.PositiveBigIntegerField(default=0)
    # Contest slug or assessment id for contest/assessment submissions (rejudge --contest).
    context_key = models.CharField(max_length=64, blank=True, default="", db_index=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # An assessment's or contest's per-participant judging (gridstride.lib.variation): the secret
    # participant seed and the hidden shapes. Server-side only; no page or API route returns it.
    variation = models.JSONField(default=dict, blank=True)
    # Seconds from entering the queue to the first judge starting it (first attempt only): what an
    # assessment credits back to its candidate's clock.
    queue_wait_s = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    # When this attempt entered its queue (orders the queue) and when its message was published
    # (None: not yet, or publishing failed; the sweeper sends it).
    queued_at = models.DateTimeField(null=True, blank=True)
    dispatched_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["problem", "gpu_model", "language", "verdict"]),
            models.Index(fields=["owner", "-created_at"]),
            models.Index(fields=["status", "gpu_model", "priority", "queued_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.public_id} {self.problem_id} {self.language} {self.status}/{self.verdict}"

    @property
    def is_final(self) -> bool:
        return self.status == Status.DONE

    @property
    def queue(self) -> str:
        """judge.<model>, or judge.<model>.x<k> for a problem whose judging holds k GPUs (the
        version's spec says; dispatch loads the version with the submission)."""
        return judge_queue(self.gpu_model, gpus_needed(self.problem_version.spec))

    @property
    def task_id(self) -> str:
        """The broker message id of the current attempt (deterministic: re-sends replace, revokes find it)."""
        return f"{self.public_id}.{self.attempt}"


class EventKind(models.TextChoices):
    CREATED = "created"
    DISPATCHED = "dispatched"
    DISPATCH_FAILED = "dispatch_failed", "Dispatch failed"
    STARTED = "started"
    RECORDED = "recorded"
    IGNORED = "ignored", "Report ignored"
    REQUEUED = "requeued"
    GAVE_UP = "gave_up", "Gave up"
    REJUDGE = "rejudge"


class SubmissionEvent(models.Model):
    """The pipeline's audit trail of one submission: who started it, what was recorded or ignored."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=16, choices=EventKind.choices)
    attempt = models.PositiveIntegerField()
    detail = models.TextField(blank=True, default="")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["at", "id"]
        indexes = [models.Index(fields=["submission", "kind"])]

    def __str__(self) -> str:
        return f"{self.submission_id} #{self.attempt} {self.kind}"


class Draft(models.Model):
    """The editor's text of one user, problem and language as last saved by the problem page
    (debounced while typing: submissions/drafts.py), so it follows the user to another machine.
    The browser's localStorage keeps its own copy for when the site cannot be reached."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="drafts")
    problem = models.ForeignKey("catalog.Problem", on_delete=models.CASCADE, related_name="+")
    language = models.CharField(max_length=16, choices=Language.choices)
    source = models.TextField()
    updated_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "problem", "language"], name="one_draft_per_language"),
        ]

    def __str__(self) -> str:
        return f"{self.owner_id} {self.problem_id} {self.language}"


class DraftQuota(models.Model):
    """Draft saves of one user in the current minute (submissions/drafts.py's rate limit): one row
    per user, so the limit holds across the site's processes."""

    owner = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    window_start = models.DateTimeField()
    saves = models.PositiveIntegerField(default=0)
