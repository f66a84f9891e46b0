from typing import Any

from django.apps import AppConfig


class LeaderboardsConfig(AppConfig):
    name = "gridstride.leaderboards"
    label = "leaderboards"

    def ready(self) -> None:
        from gridstride.submissions.signals import submission_judged

        submission_judged.connect(_judged, dispatch_uid="leaderboards.best_runs")


def _judged(sender: Any, submission: Any, **kwargs: Any) -> None:
    from gridstride.leaderboards.actions import on_judged

    on_judged(submission)
