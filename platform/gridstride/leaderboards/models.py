"""Each user's best run per board, kept current from the pipeline's `submission_judged` signal.

A board is (problem, ranking hash, GPU model, language); language "" is the all-languages board.
The rows are derived data: leaderboards.actions recomputes one from Submission rows whenever a
run of that user on that board is judged (or rejudged), and `manage.py rebuild_leaderboards`
recomputes them all. Reading a board is then one indexed range scan instead of a window over
every accepted run (measured in docs/benchmarks.md, "Web").
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

ALL_LANGUAGES = ""


class BestRun(models.Model):
    problem = models.ForeignKey("catalog.Problem", on_delete=models.CASCADE, related_name="best_runs")
    ranking_hash = models.CharField(max_length=32)
    gpu_model = models.CharField(max_length=32)
    language = models.CharField(max_length=16, blank=True)  # "" = all languages
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="best_runs")
    submission = models.ForeignKey("submissions.Submission", on_delete=models.CASCADE, related_name="+")
    ranked = models.BooleanField()
    score_us = models.FloatField(null=True)
    # The score's interval: geometric means of the shapes' CI bounds (ties are overlapping intervals).
    score_low_us = models.FloatField(null=True)
    score_high_us = models.FloatField(null=True)
    sol_pct = models.FloatField(null=True)
    speedup = models.FloatField(null=True)
    run_language = models.CharField(max_length=16)
    achieved_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["problem", "ranking_hash", "gpu_model", "language", "owner"], name="one_best_run_per_board_user"
            )
        ]
        indexes = [
            # The board's exact ORDER BY, so the first page is read off the index without a sort.
            models.Index(
                fields=["problem", "ranking_hash", "gpu_model", "language", "score_us", "achieved_at", "id"],
                name="board_order_v2",
            )
        ]

    def __str__(self) -> str:
        return f"{self.problem_id}/{self.gpu_model}/{self.language or 'all'}: {self.owner_id} {self.score_us}"
