from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from gridstride.catalog.actions import sync_problems


class Command(BaseCommand):
    help = "Load problems/ into the catalog (idempotent) and report what changed."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--strict", action="store_true", help="exit non-zero if any problem is broken")

    def handle(self, *args: Any, strict: bool = False, **options: Any) -> None:
        report = sync_problems()
        for label, slugs in (
            ("created", report.created),
            ("updated", report.updated),
            ("unchanged", report.unchanged),
            ("deactivated", report.deactivated),
            ("ladders stored", report.ladders),
            ("ladders removed", report.ladders_removed),
        ):
            if slugs:
                self.stdout.write(f"{label}: {', '.join(slugs)}")
        for error in report.errors:
            self.stderr.write(self.style.ERROR(f"broken: {error}"))
        if strict and report.errors:
            raise CommandError(f"{len(report.errors)} problem(s) failed to load")
