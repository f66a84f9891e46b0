"""manage.py judges: the judge workers online, their GPU model, queue and capabilities."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from gridstride.submissions.models import Status, Submission
from gridstride.submissions.monitor import online_judges
from judge.protocol import judge_queue


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
        # By queue, not model: a problem needing k GPUs waits for judges holding k (pools.py).
        waiting = Counter(
            judge_queue(model, gpus or 1)
            for model, gpus in Submission.objects.filter(status=Status.QUEUED).values_list(
                "gpu_model", "problem_version__spec__gpus"
            )
        )
        served = {j["queue"] for j in judges}
        for queue, count in sorted(waiting.items()):
            note = "" if queue in served else "  (no judge online for it)"
            self.stdout.write(f"{queue}: {count} queued{note}")
