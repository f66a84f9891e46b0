from typing import Any

from django.apps import AppConfig


class ContestsConfig(AppConfig):
    name = "gridstride.contests"
    label = "contests"

    def ready(self) -> None:
        from gridstride.submissions.signals import submission_judged

        submission_judged.connect(_judged, dispatch_uid="contests.final_runs")


def _judged(sender: Any, submission: Any, **kwargs: Any) -> None:
    from gridstride.contests.actions import on_judged

    on_judged(submission)
