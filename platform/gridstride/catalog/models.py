"""The problem catalog: one Problem per slug, one ProblemVersion per distinct content hash."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ProblemQuerySet(models.QuerySet["Problem"]):
    def public(self) -> ProblemQuerySet:
        """What anyone may see and practise: active and not hidden. Hidden problems are reached only
        through an assessment or contest the viewer belongs to (docs/assessments.md)."""
        return self.filter(is_active=True, is_hidden=False)


class Problem(models.Model):
    slug = models.SlugField(max_length=48, unique=True)
    title = models.CharField(max_length=200)
    track = models.CharField(max_length=32, db_index=True)
    difficulty = models.CharField(max_length=16)
    order = models.PositiveIntegerField(default=100)
    tags = models.JSONField(default=list)
    languages = models.JSONField(default=list)
    # False once the problem's directory disappears: old submissions keep their problem.
    is_active = models.BooleanField(default=True)
    # problem.toml's `hidden = true`: never in the public catalog, leaderboards, API or profiles.
    is_hidden = models.BooleanField(default=False)
    current_version = models.ForeignKey(
        "catalog.ProblemVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ProblemQuerySet.as_manager()

    class Meta:
        ordering = ["track", "order", "slug"]

    def __str__(self) -> str:
        return self.slug


class ProblemVersion(models.Model):
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="versions")
    content_hash = models.CharField(max_length=32)
    # Changes when interface, checks, benchmarks or reference change: leaderboards reset.
    ranking_hash = models.CharField(max_length=32, db_index=True)
    statement = models.TextField()
    spec = models.JSONField()
    starters = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["problem", "content_hash"], name="unique_problem_content")]
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.problem.slug}@{self.content_hash}"


class Ladder(models.Model):
    """A problem's optimization ladder (problems/<slug>/ladder/, docs/ladders.md), mirrored by
    sync_problems. Shown to a user only once catalog/ladder_access.py says so."""

    problem = models.OneToOneField(Problem, on_delete=models.CASCADE, related_name="ladder")
    intro = models.TextField(blank=True, default="")  # editorial.md before its first section
    # figures.json without its rungs (GPU system, measured ceilings, mode, date); null before a GPU run.
    run = models.JSONField(null=True, blank=True)
    content_hash = models.CharField(max_length=32)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"ladder of {self.problem.slug}"


class LadderRung(models.Model):
    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="rungs")
    position = models.PositiveSmallIntegerField()  # 1-based
    title = models.CharField(max_length=200)
    path = models.CharField(max_length=300)  # repository-relative
    language = models.CharField(max_length=16)
    step = models.TextField()  # the change this rung makes over the one before
    source = models.TextField()
    editorial = models.TextField(blank=True, default="")  # Markdown
    figures = models.JSONField(null=True, blank=True)  # its entry of figures.json (bench/ladder.py)

    class Meta:
        ordering = ["ladder", "position"]
        constraints = [models.UniqueConstraint(fields=["ladder", "position"], name="unique_ladder_position")]

    def __str__(self) -> str:
        return f"{self.ladder.problem.slug} rung {self.position}"


class LadderGiveUp(models.Model):
    """A user chose, explicitly and after confirming, to see a problem's ladder before solving it."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "problem"], name="unique_ladder_give_up")]

    def __str__(self) -> str:
        return f"{self.user_id} gave up on {self.problem_id}"
