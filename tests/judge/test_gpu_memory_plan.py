"""Which memory a job's child computes on, and the launch cover it is told to use
(judge/harness/parent/plan.py, docs/judging.md section 2): CPU hosts always on the parent's
memory; GPU hosts on the child's own inputs unless GRIDSTRIDE_PARENT_MEMORY=1, and then with the
judge's fixed cover for the calibration and the timing alike. Planned only: nothing runs here."""

from __future__ import annotations

import pytest

from judge.harness.parent.config import JudgeConfig, parent_memory_from_env
from judge.harness.parent.plan import make_plan
from judge.protocol import JudgeJob
from judge.spec import load

SOURCE = "def solve(a, b, c, n):\n    c.copy_(a + b)\n"


def plan(device: str, parent_memory: bool | None) -> dict:
    job = JudgeJob(submission_id="p", attempt=1, problem="vector_add", language="triton", source=SOURCE)
    config = JudgeConfig(device=device, parent_memory=parent_memory)
    return make_plan(load("vector_add"), job, config).job.to_dict()


def test_a_cpu_host_always_judges_on_the_parents_memory_and_sends_no_seed() -> None:
    sent = plan("cpu", None)
    assert sent["memory"] == "shared" and "reference_source" not in sent
    assert all("seed" not in case for case in sent["cases"])


def test_a_gpu_host_keeps_the_childs_own_inputs_by_default() -> None:
    sent = plan("cuda", None)
    assert sent["memory"] == "own" and sent["reference_source"] and sent["profile_kernels"]
    assert sent["policy"]["cover_min_us"] < sent["policy"]["cover_max_us"]  # the cover follows the host


def test_parent_memory_on_a_gpu_fixes_the_launch_cover_and_keeps_the_profiler() -> None:
    sent = plan("cuda", True)
    cover = JudgeConfig().gpu_cover_us
    assert sent["memory"] == "shared" and "reference_source" not in sent
    assert sent["policy"]["cover_min_us"] == sent["policy"]["cover_max_us"] == cover
    assert sent["profile_kernels"] is True  # the kernel list's call is staged by the parent


@pytest.mark.parametrize(("value", "expected"), [("", None), ("1", True), ("0", False)])
def test_the_switch_is_read_strictly(value: str, expected: bool | None) -> None:
    assert parent_memory_from_env({"GRIDSTRIDE_PARENT_MEMORY": value}) is expected


def test_a_misspelt_switch_is_refused_naming_the_variable() -> None:
    with pytest.raises(ValueError, match="GRIDSTRIDE_PARENT_MEMORY"):
        parent_memory_from_env({"GRIDSTRIDE_PARENT_MEMORY": "yes"})
