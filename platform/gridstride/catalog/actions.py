"""State changes of the catalog. Views, commands and tasks call these, never the ORM directly."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db import transaction

from gridstride.catalog.models import Problem, ProblemVersion
from judge import spec as judge_spec


@dataclass
class SyncReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    deactivated: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _json_safe(problem: judge_spec.ProblemSpec) -> dict:
    data = problem.as_dict()
    data.pop("statement", None)
    data.pop("starters", None)
    return data


@transaction.atomic
def sync_problems(root: Path | None = None) -> SyncReport:
    """Mirror problems/ into Problem/ProblemVersion rows. Idempotent; broken problems are reported."""
    report = SyncReport()
    specs, errors = judge_spec.load_all(root or settings.PROBLEMS_DIR)
    report.errors = [str(e) for e in errors]
    broken = {e.path.parent.name for e in errors}
    seen = set()
    for s in specs:
        seen.add(s.slug)
        problem, created = Problem.objects.get_or_create(
            slug=s.slug,
            defaults={"title": s.title, "track": s.track, "difficulty": s.difficulty},
        )
        version, new_version = ProblemVersion.objects.get_or_create(
            problem=problem,
            content_hash=s.content_hash,
            defaults={
                "ranking_hash": s.ranking_hash,
                "statement": s.statement,
                "spec": _json_safe(s),
                "starters": s.starters,
            },
        )
        fields = {
            "title": s.title,
            "track": s.track,
            "difficulty": s.difficulty,
            "order": s.order,
            "tags": list(s.tags),
            "languages": list(s.languages),
            "is_active": True,
            "is_hidden": s.hidden,
            "current_version_id": version.pk,
        }
        changed = any(getattr(problem, k) != v for k, v in fields.items())
        if changed:
            for k, v in fields.items():
                setattr(problem, k, v)
            problem.save()
        if created:
            report.created.append(s.slug)
        elif changed or new_version:
            report.updated.append(s.slug)
        else:
            report.unchanged.append(s.slug)
    # A problem whose directory is gone is hidden; one that is merely broken keeps its last version.
    for problem in Problem.objects.filter(is_active=True).exclude(slug__in=seen | broken):
        problem.is_active = False
        problem.save(update_fields=["is_active", "updated_at"])
        report.deactivated.append(problem.slug)
    return report
