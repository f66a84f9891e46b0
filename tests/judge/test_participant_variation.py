"""A participant's variation on the judge (JudgeJob version 2, docs/assessments.md): the parent mixes
the participant seed into every input seed, judges the hidden shapes after the public ones, and
the child never receives the participant seed."""

from __future__ import annotations

import json

from judging_helpers import CPU_CONFIG, judge

from judge import spec as specmod
from judge.harness.parent.judging import Judging
from judge.harness.parent.plan import make_plan
from judge.protocol import JudgeJob

# Prints the sum of each case's first input: the inputs a case got, seen from inside.
PRINTS_INPUTS = """
import torch

def solve(a, b, c, n):
    print(f"{n}:{float(a.double().sum()):.6f}")
    torch.add(a, b, out=c)
"""
OK = "import torch\n\ndef solve(a, b, c, n):\n    torch.add(a, b, out=c)\n"


def participant(seed: int, hidden: list[dict] | None = None) -> dict:
    return {"participant_seed": seed, "hidden_benchmarks": hidden or [], "version": 2}


def test_the_participant_seed_changes_every_input_and_one_participant_gets_the_same_ones() -> None:
    plain = judge(PRINTS_INPUTS, seed=7)
    first = judge(PRINTS_INPUTS, seed=7, **participant(1234567))
    again = judge(PRINTS_INPUTS, seed=7, **participant(1234567))
    other = judge(PRINTS_INPUTS, seed=7, **participant(7654321))
    for report in (plain, first, again, other):
        assert report.verdict == "accepted", report.message
    lines = [set(r.stdout.split()) for r in (plain, first, other)]
    assert first.stdout == again.stdout
    assert not lines[0] & lines[1] and not lines[1] & lines[2], "no case got the same inputs"


def test_hidden_shapes_are_judged_after_the_public_ones() -> None:
    hidden = [{"name": "hidden-1", "sizes": {"n": 50_001}}, {"name": "hidden-2", "sizes": {"n": 3_337}}]
    report = judge(OK, mode="benchmark", **participant(99, hidden))
    assert report.verdict == "accepted", report.message
    public = [c.name for c in specmod.load("vector_add").cpu_benchmarks]
    assert [b.name for b in report.benchmarks] == [*public, "hidden-1", "hidden-2"]
    assert report.benchmarks[-2].sizes == {"n": 50_001} and report.benchmarks[-1].sizes == {"n": 3_337}
    assert report.score_us is not None


def test_a_hidden_shape_without_the_problems_sizes_is_the_judges_error_not_the_candidates() -> None:
    report = judge(OK, mode="benchmark", **participant(99, [{"name": "hidden-1", "sizes": {"m": 5}}]))
    assert report.verdict == "internal_error" and "hidden shape" in report.message


def test_the_child_job_carries_no_participant_seed() -> None:
    seed = 918_273_645_546_372
    job = JudgeJob(
        submission_id="s", attempt=1, problem="vector_add", language="pytorch", source=OK, mode="benchmark",
        seed=3, **participant(seed, [{"name": "hidden-1", "sizes": {"n": 4_099}}]),
    )  # fmt: skip
    judging = Judging(job, CPU_CONFIG, None, 0.0)  # mixes the participant seed into the job's
    payload = json.dumps(make_plan(specmod.load("vector_add"), judging.job, CPU_CONFIG).job.to_dict())
    assert str(seed) not in payload and "participant" not in payload
    assert '"hidden-1"' in payload, "the hidden shape itself is run by the child"
