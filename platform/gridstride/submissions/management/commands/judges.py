"""manage.py judges: the judge workers online, their GPU model, queue and capabilities."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from gridstride.submissions.models import Status, Submission
from gridstride.submissions.monitor import online_judges


class Command(BaseCommand):
    help = "List the judge workers that answer now, and how many submissions wait for each queue."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--timeout", type=float, default=2.0, help="seconds to wait for answers")

    def handle(self, *args: Any, **opts: Any) -> None:
        judges = online_judges(opts["timeout"])
        for j in judges:
            caps = ", ".join(j.get("capabilities") or []) or "-"
            self.stdout.write(f"{j['node']}  {j['queue']}  {j.get('gpu_name') or j['gpu_model']}  [{caps}]")
        self.stdout.write(f"{len(judges)} judges online.")
        waiting = Submission.objects.filter(status=Status.QUEUED).values_list("gpu_model", flat=True)
        served = {j["gpu_model"] for j in judges}
        for model in sorted(set(waiting)):
            count = list(waiting).count(model)
            note = "" if model in served else "  (no judge online for it)"
            self.stdout.write(f"judge.{model}: {count} queued{note}")
