"""bench/precision.py's bookkeeping: a step cut by its time limit keeps the runs it finished, and
a rewrite of the table keeps the notes written under it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_precision() -> Any:
    spec = importlib.util.spec_from_file_location("precision_bench", ROOT / "bench" / "precision.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def fake_report(score: float) -> dict[str, Any]:
    return {
        "verdict": "accepted",
        "message": "",
        "score_us": score,
        "benchmarks": [{"name": "16M", "median_us": score}],
        "system": {"gpu": "Test GPU"},
        "_wall_s": 1.0,
    }


class Cut(Exception):
    """Stands in for the step's time limit killing the process."""


def test_a_cut_run_keeps_its_finished_judgings_and_says_it_was_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    precision = load_precision()
    scores = iter([100.0, 100.5])

    def judge_once(slug: str, path: Path, timeout: float) -> dict[str, Any]:
        try:
            return fake_report(next(scores))
        except StopIteration:
            raise Cut from None

    monkeypatch.setattr(precision, "judge_once", judge_once)
    saved: list[dict[str, Any]] = []
    with pytest.raises(Cut):
        precision.measure("vector_add", 10, 60.0, on_run=lambda partial: saved.append(dict(partial)))
    assert [s["runs"] for s in saved] == [1, 2]
    table = precision.table({"vector_add": saved[-1]})
    assert "| vector_add | Test GPU | 2/2 (cut: 2 of 10 planned) | 100.250 | 0.50% |" in table


def test_rewriting_the_table_keeps_the_notes_under_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    precision = load_precision()
    doc = tmp_path / "benchmarks.md"
    doc.write_text(
        "# Benchmarks\n\n## Precision\n\nold table\n\n"
        + precision.TABLE_END
        + "\n\nNotes: what the last run showed.\n\n## Later\n\nkept\n"
    )
    monkeypatch.setattr(precision, "DOC", doc)
    row = {
        "problem": "softmax",
        "runs": 10,
        "accepted": 10,
        "scores_us": [169.0, 169.5],
        "shape_medians_us": {"8192x32768": [169.0, 169.5]},
        "gpu": "Test GPU",
        "mean_wall_s": 20.0,
        "measured_at": "2026-12-01 00:00 UTC",
    }
    precision.write_section(precision.table({"softmax": row}))
    text = doc.read_text()
    assert "old table" not in text and "| softmax | Test GPU | 10/10 |" in text
    assert text.count(precision.TABLE_END) == 1
    assert "Notes: what the last run showed." in text and text.endswith("## Later\n\nkept\n")


def test_a_first_judging_that_is_not_accepted_ends_that_problems_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A judge or kernel that fails outright would fail all ten runs: the bench stops after one
    and the table says why, instead of spending the device time."""
    precision = load_precision()
    calls: list[int] = []

    def judge_once(slug: str, path: Path, timeout: float) -> dict[str, Any]:
        calls.append(1)
        return {**fake_report(100.0), "verdict": "rejected", "message": "hidden-work"}

    monkeypatch.setattr(precision, "judge_once", judge_once)
    result = precision.measure("vector_add", 10, 60.0)
    assert len(calls) == 1 and result["accepted"] == 0
    assert "| vector_add | - | 0/1 (stopped: first judging not accepted) |" in precision.table({"vector_add": result})
