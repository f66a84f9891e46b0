"""A shape whose drains look like hidden work is timed once more before it is rejected
(JudgeConfig.timing_attempts). On a CPU host every drain is 0, so the parent's reading of the
drains is replaced here; the child, its second timing and the frames between them are real."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from judge.harness.child.timing import TimingPolicy
from judge.harness.parent import results
from judge.harness.parent.config import JudgeConfig
from tests.judge.judging_helpers import judge

# Every timing holds exactly its 20 calls (tests/judge/conftest.py).
pytestmark = pytest.mark.usefixtures("one_call_a_batch")

# Every timing: 3 warm-up calls, then 20 timed calls.
FIXED = JudgeConfig(
    device="cpu",
    limit_cap_seconds=60,
    policy=TimingPolicy(warmup_min=3, warmup_max=3, min_reps=20, max_reps=20, max_seconds=30.0),
)

ADD = """
import torch

def solve(a, b, c, n):
    torch.add(a, b, out=c)
"""


def slow_drains_on(timings: set[int], monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every drain of the listed timings (counted from 1 over the whole judging) reads as slow;
    returns the number of timed calls of each timing seen."""
    seen: list[int] = []

    def fake(drains_us: list[float], times_us: list[float], config: Any) -> list[tuple[float, float]]:
        seen.append(len(times_us))
        if len(seen) in timings:
            return [(90.0, t) for t in times_us]
        return []

    monkeypatch.setattr(results, "slow_drains", fake)
    return seen


def test_a_shape_with_slow_drains_once_is_timed_again_and_scored_on_that_timing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = slow_drains_on({2}, monkeypatch)  # the second shape's first timing
    report = judge(ADD, mode="benchmark", config=FIXED)
    assert report.verdict == "accepted", report.message
    shapes = report.benchmarks
    assert len(seen) == len(shapes) + 1
    assert [b.timing_attempts for b in shapes] == [1, 2] + [1] * (len(shapes) - 2)
    assert shapes[1].slow_drains == [seen[1], 0] and shapes[0].slow_drains == [0]
    assert shapes[1].n == seen[2] == 20  # the statistics are the second timing's
    assert any("to be timed again" in step for step, _ in report.system["timeline_s"]), report.system


def test_slow_drains_in_both_timings_are_hidden_work(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = slow_drains_on({1, 2}, monkeypatch)
    report = judge(ADD, mode="benchmark", config=FIXED)
    assert report.verdict == "rejected", report.message
    assert f"timed 2 times, {seen[0]} of {seen[0]} and then {seen[1]} of {seen[1]} timed calls" in report.message
    assert "hidden-work" in report.message


def test_the_output_of_a_shape_timed_again_is_checked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The second timing's final output is checked like the first's: a submission that turns
    wrong during the second timing of a shape is caught there."""
    seen = slow_drains_on({2}, monkeypatch)  # the last CPU shape (n = 1,048,576), first timing
    source = """
    import torch
    calls = []

    def solve(a, b, c, n):
        calls.append(n)
        torch.add(a, b, out=c)
        # 24 calls in the first timing (the checked call, 3 warm-up, 20 timed); then the second
        if n == 1048576 and calls.count(n) > 30:
            c.zero_()
    """
    # The child-made inputs of GPU hosts, whose final output is checked after each timing (where
    # the parent owns the memory it checks every call's output as the call is reported done).
    report = judge(source, mode="benchmark", config=dataclasses.replace(FIXED, parent_memory=False))
    assert len(seen) == 3, report.message
    assert report.verdict == "wrong_answer" and "benchmark 1M" in report.message, report.message


def test_a_second_timing_the_judge_did_not_ask_for_is_refused() -> None:
    """Times for a shape already timed (say, faster ones, forged from inside solve) are refused."""
    source = """
    import sys
    import torch
    from judge.harness.common import framing
    fd = int(sys.argv[sys.argv.index("--out-fd") + 1]) if "--out-fd" in sys.argv else 4
    out = framing.open_writer(fd)
    sent = []

    def solve(a, b, c, n):
        torch.add(a, b, out=c)
        if n == 1048576 and not sent:  # the second shape: the first is timed and checked
            sent.append(1)
            framing.write_frame(out, {"kind": "timing_start", "shape": 0})
            framing.write_frame(out, {
                "kind": "times", "shape": 0, "times_us": [0.001] * 20, "sets": [0] * 20,
                "drains_us": [0.0] * 20, "seeds": list(range(900, 920)), "warmup_seeds": [],
                "stop_reason": "count", "cover_us": 0.0,
            })
    """
    report = judge(source, mode="benchmark", config=FIXED)
    assert report.verdict == "rejected" and "malformed" in report.message, report.message
