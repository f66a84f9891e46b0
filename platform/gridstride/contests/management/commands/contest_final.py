"""manage.py contest_final SLUG [--wait]: start or resume a contest's final re-run and report it."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from gridstride.contests import actions
from gridstride.contests.models import Contest


class Command(BaseCommand):
    help = "Start or resume the final re-run of an ended contest (safe to run again)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--wait", action="store_true", help="print progress until every re-run is judged")

    def handle(self, *args: Any, **options: Any) -> None:
        contest = Contest.objects.filter(slug=options["slug"]).first()
        if contest is None:
            raise CommandError(f"no contest {options['slug']!r}")
        while True:
            try:
                progress = actions.start_final_run(contest)
            except actions.ContestError as exc:
                raise CommandError(exc.message) from None
            self.stdout.write(
                f"{contest.slug}: {progress.waiting} live judgings to wait for, {progress.created} sent now, "
                f"{progress.judging} judging, {progress.decided} decided"
            )
            if progress.done or not options["wait"]:
                return
            time.sleep(2)
