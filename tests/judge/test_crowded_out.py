"""A GPU out-of-memory error in the parent is the submission's memory_limit only when the
parent's own figures show the child held more than it honestly could
(judge/harness/parent/crowded.py)."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from judge.harness.parent import crowded, judging
from judge.harness.parent.config import JudgeConfig
from judge.protocol import JudgeJob

GIB = 1 << 30
H200 = 140 * GIB


def test_a_child_holding_the_whole_gpu_is_blamed_with_the_figures() -> None:
    others = crowded.held_by_others(total=H200, free=GIB // 4, parent_reserved=3 * GIB)
    message = crowded.crowded_out_message(others, H200, limit_bytes=16 << 30, pool_fraction=0.4)
    assert message is not None
    assert "about 136.8 GiB of the GPU's 140 GiB" in message and "16,384 MiB this problem allows" in message


def test_a_child_within_its_pools_and_limit_is_not_blamed() -> None:
    # 40% pools + the 16 GiB limit + contexts: 76 GiB may be the child's own; 70 GiB is.
    others = crowded.held_by_others(total=H200, free=H200 - 70 * GIB - 5 * GIB, parent_reserved=5 * GIB)
    assert others == 70 * GIB
    assert crowded.crowded_out_message(others, H200, limit_bytes=16 << 30, pool_fraction=0.4) is None


def test_only_a_gpu_out_of_memory_on_a_gpu_host_is_considered() -> None:
    oom = torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 16.00 GiB")
    assert crowded.is_gpu_out_of_memory(oom)
    assert crowded.is_gpu_out_of_memory(RuntimeError("CUDA error: out of memory"))
    assert not crowded.is_gpu_out_of_memory(ValueError("out of memory"))
    assert not crowded.is_gpu_out_of_memory(RuntimeError("an illegal memory access was encountered"))
    assert crowded.crowded_out(oom, "cpu", 16 << 30, 0.4) is None
    assert crowded.crowded_out(oom, "cuda", None, 0.4) is None  # the problem was never loaded


@pytest.mark.parametrize(("blamed", "verdict"), [(True, "memory_limit"), (False, "internal_error")])
def test_judge_job_reports_the_parents_out_of_memory_by_whose_memory_it_was(
    blamed: bool, verdict: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Any] = []

    def run(self: judging.Judging) -> None:
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 16.00 GiB")

    def fake_crowded_out(exc: BaseException, device: str, limit: int | None, fraction: float) -> str | None:
        seen.append((type(exc).__name__, limit, fraction))
        return crowded.crowded_out_message(130 * GIB if blamed else 10 * GIB, H200, 16 << 30, fraction)

    monkeypatch.setattr(judging.Judging, "run", run)
    monkeypatch.setattr(judging, "crowded_out", fake_crowded_out)
    job = JudgeJob(submission_id="oom", attempt=1, problem="vector_add", language="pytorch", source="", mode="test")
    report = judging.judge_job(job, config=JudgeConfig(warm_pool=False))  # no background preparing
    assert report.verdict == verdict and not report.ranked
    assert ("out of GPU memory" in report.message) == blamed
    assert seen and seen[0][0] == "OutOfMemoryError"


def test_the_parents_own_regions_are_not_counted_as_the_childs(monkeypatch: pytest.MonkeyPatch) -> None:
    """On parent-owned memory the parent's cuMemAlloc regions sit outside torch's allocator: the
    driver's used memory less both is what the rest holds."""
    from judge.harness.common import device_memory

    oom = torch.OutOfMemoryError("CUDA out of memory")
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda *a: (GIB, H200))  # 139 GiB in use
    monkeypatch.setattr(torch.cuda, "memory_reserved", lambda *a: 9 * GIB)
    monkeypatch.setattr(device_memory, "owned_bytes", lambda: 0)
    assert crowded.crowded_out(oom, "cuda", 16 << 30, 0.4) is not None  # 130 GiB others: blamed
    monkeypatch.setattr(device_memory, "owned_bytes", lambda: 70 * GIB)
    assert crowded.crowded_out(oom, "cuda", 16 << 30, 0.4) is None  # 60 GiB others: within honest
