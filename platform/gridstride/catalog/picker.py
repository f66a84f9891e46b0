"""The catalog problem picker of the contest and assessment forms, and what it says about public
problems: a public problem's optimization ladder (expert code and editorial) can be read on the
site, which a contest or an assessment cannot take back (catalog/ladder_lock.py closes it only
while a contest runs, and only to the assessment's own candidate during their session).

Each public problem's checkbox carries data-public; static/gridstride/picker.js shows the form's
warning while one is ticked, and the page renders it shown when the form comes back with one.
"""

from __future__ import annotations

from typing import Any

from django import forms

from gridstride.catalog.models import Problem

CONTEST_WARNING = (
    "A public problem's optimization ladder and editorial (expert code included) are public outside "
    "the contest window: anyone may read them before the start, and they open again at the end. While "
    "the contest runs they are closed site-wide, to everyone but its organizers. Hidden problems are "
    "the choice for a contest whose solutions must stay unknown."
)
ASSESSMENT_WARNING = (
    "A public problem's optimization ladder and editorial (expert code included) are public. They are "
    "hidden from your candidates during their own sessions only, not site-wide (a window can last "
    "weeks): a candidate may have read them before, or read them from another account. Teams who want "
    "no public exposure should use hidden problems."
)


def label(problem: Problem) -> str:
    """A picker row: the title, the difficulty, and whether the problem is hidden."""
    return f"{problem.title} ({problem.difficulty}{', hidden' if problem.is_hidden else ''})"


class ProblemPicker(forms.CheckboxSelectMultiple):
    """Checkboxes of catalog problems; a public problem's carries data-public."""

    def create_option(
        self,
        name: str,
        value: Any,
        label: Any,
        selected: bool,
        index: int,
        subindex: int | None = None,
        attrs: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        problem = getattr(value, "instance", None)  # ModelChoiceIteratorValue
        if isinstance(problem, Problem) and not problem.is_hidden:
            option["attrs"]["data-public"] = "1"
        return option


def offer(field: forms.Field) -> None:
    """Fill a ModelMultipleChoiceField with the ProblemPicker widget: every active problem, hidden
    ones included and listed last (contests and assessments are where hidden problems are used)."""
    field.queryset = Problem.objects.filter(is_active=True).order_by("is_hidden", "order", "slug")  # type: ignore[attr-defined]
    field.label_from_instance = label  # type: ignore[attr-defined]


def public_chosen(field: forms.BoundField) -> list[Problem]:
    """The public problems ticked in the picker (the submitted ones, else the initial ones)."""
    ids = [str(v) for v in field.value() or []]
    wanted = [int(v) for v in ids if v.isdigit()]
    if not wanted:
        return []
    return list(Problem.objects.filter(pk__in=wanted, is_hidden=False).order_by("order", "slug"))
