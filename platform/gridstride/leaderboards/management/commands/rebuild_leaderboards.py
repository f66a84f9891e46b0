from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from gridstride.catalog.models import Problem
from gridstride.leaderboards.actions import rebuild


class Command(BaseCommand):
    help = "Recompute every leaderboard entry from the judged submissions (after imports or restores)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("slug", nargs="?", help="only this problem")

    def handle(self, *args: Any, **options: Any) -> None:
        problem = None
        if options["slug"]:
            problem = Problem.objects.filter(slug=options["slug"]).first()
            if problem is None:
                raise CommandError(f"no problem {options['slug']!r}")
        self.stdout.write(f"{rebuild(problem)} leaderboard entries")
