"""Two submissions compared: a line diff of the code and, per benchmark shape both timed, the
median of each and the change (pages/units.py formats every figure)."""

from __future__ import annotations

import difflib
from typing import Any

from gridstride.pages import units
from gridstride.submissions.models import Submission

# Context lines kept around each change in the diff.
CONTEXT = 3


def diff_lines(old: str, new: str) -> list[tuple[str, str]]:
    """(kind, text) per line of a unified diff: kind is "add", "del", "hunk" or "same"."""
    rows = []
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), "a", "b", n=CONTEXT, lineterm=""):
        if line.startswith(("---", "+++")):
            continue
        kind = {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "same")
        rows.append((kind, line))
    return rows


def shape_deltas(a: dict[str, Any] | None, b: dict[str, Any] | None) -> list[dict[str, str]]:
    """Per shape timed in both: the medians and how much faster or slower the second is."""
    first = {s.get("name"): s for s in (a or {}).get("benchmarks") or []}
    rows = []
    for shape in (b or {}).get("benchmarks") or []:
        before = first.get(shape.get("name"))
        if not before or not before.get("median_us") or not shape.get("median_us"):
            continue
        old, new = float(before["median_us"]), float(shape["median_us"])
        change = (new - old) / old * 100
        rows.append(
            {
                "name": str(shape.get("name")),
                "a": units.duration_us(old),
                "b": units.duration_us(new),
                "change": f"{change:+.1f} %",
                "speedup": units.factor(old / new),
                "better": "yes" if new < old else "no" if new > old else "",
            }
        )
    return rows


def build(a: Submission, b: Submission) -> dict[str, Any]:
    return {
        "a": a,
        "b": b,
        "same_problem": a.problem_id == b.problem_id,
        "diff": diff_lines(a.source, b.source),
        "shapes": shape_deltas(a.report, b.report),
        "score_a": units.duration_us(a.score_us),
        "score_b": units.duration_us(b.score_us),
    }
