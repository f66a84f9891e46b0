"""manage.py rejudge: judge submissions again (a problem was fixed, a judge upgraded).

    manage.py rejudge --submission UUID [UUID ...]
    manage.py rejudge --problem vector_add [--verdict accepted] [--wait]
    manage.py rejudge --contest spring-2027 --wait

Rejudges run after every other kind of job (lowest priority). Each keeps its old verdict until
the new one is recorded, so leaderboards change only when a judge has answered.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import QuerySet

from gridstride.submissions import actions
from gridstride.submissions.models import Context, Status, Submission


class Command(BaseCommand):
    help = "Judge submissions again: one or more, every one of a problem, or every one of a contest."

    def add_arguments(self, parser: CommandParser) -> None:
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--submission", nargs="+", metavar="UUID", help="public ids")
        which.add_argument("--problem", metavar="SLUG")
        which.add_argument("--contest", metavar="KEY", help="contest slug (the submissions' context key)")
        parser.add_argument("--verdict", action="append", help="only those with this verdict (repeatable)")
        parser.add_argument("--dry-run", action="store_true", help="list what would be rejudged")
        parser.add_argument("--wait", action="store_true", help="follow the judging until every one is done")
        parser.add_argument("--timeout", type=float, default=3600.0, help="seconds --wait waits at most")

    def handle(self, *args: Any, **opts: Any) -> None:
        chosen = self._select(opts)
        total = chosen.count()
        if total == 0:
            raise CommandError("No submission matches.")
        if opts["dry_run"]:
            for s in chosen.iterator():
                self.stdout.write(f"{s.public_id}  {s.problem.slug}  {s.language}  {s.verdict or s.status}")
            self.stdout.write(f"{total} submissions would be rejudged.")
            return
        queued: list[int] = []
        for n, submission in enumerate(chosen.iterator(), 1):
            if actions.rejudge(submission):
                queued.append(submission.pk)
            if n % 50 == 0 or n == total:
                self.stdout.write(f"queued {len(queued)}/{total}")
        if len(queued) < total:
            self.stdout.write(f"{total - len(queued)} changed meanwhile and were left as they are.")
        if opts["wait"]:
            self._follow(queued, opts["timeout"])

    def _select(self, opts: dict[str, Any]) -> QuerySet[Submission]:
        rows = Submission.objects.select_related("problem")
        if opts["submission"]:
            rows = rows.filter(public_id__in=opts["submission"])
            if rows.count() != len(set(opts["submission"])):
                raise CommandError("Some of these submissions do not exist.")
        elif opts["problem"]:
            rows = rows.filter(problem__slug=opts["problem"])
        else:
            rows = rows.filter(context=Context.CONTEST, context_key=opts["contest"])
        if opts["verdict"]:
            rows = rows.filter(verdict__in=opts["verdict"])
        return rows.order_by("created_at")

    def _follow(self, pks: list[int], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        last = ""
        while True:
            rows = Submission.objects.filter(pk__in=pks)
            states = Counter(rows.values_list("status", flat=True))
            done = states.get(Status.DONE, 0)
            line = f"judged {done}/{len(pks)}  " + "  ".join(f"{k} {v}" for k, v in sorted(states.items()))
            if line != last:
                self.stdout.write(line)
                last = line
            if done == len(pks):
                verdicts = Counter(rows.values_list("verdict", flat=True))
                self.stdout.write("verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())))
                return
            if time.monotonic() > deadline:
                raise CommandError(f"Stopped waiting after {timeout:.0f} s; the judging goes on.")
            time.sleep(1.0)
