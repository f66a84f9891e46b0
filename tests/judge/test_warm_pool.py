"""The warm pool's size (judge/harness/parent/pool_size.py) and a pool of two on the CPU host:
a job right behind another takes a warm child, and no child starts up beside a timed phase."""

from __future__ import annotations

import select
import threading
import time
from typing import Any

import pytest

from judge.harness.child.timing import TimingPolicy
from judge.harness.parent import pool_size
from judge.harness.parent.config import JudgeConfig, warm_pool_max_from_env
from judge.harness.parent.plan import child_argv, child_env
from tests.judge.judging_helpers import judge

GIB = 1 << 30
ADD = "import torch\n\ndef solve(a, b, c, n):\n    torch.add(a, b, out=c)\n"


def test_a_gpu_with_plenty_of_free_memory_keeps_the_configured_maximum() -> None:
    reserve = 64 * GIB + pool_size.PARENT_MARGIN_BYTES + GIB  # a running judging beside them
    chosen = pool_size.pool_size(2, 141 * GIB, GIB, reserve, "GPU 0 free")
    assert chosen.size == 2 and "the maximum 2" in chosen.why and "141.0 GiB" in chosen.why
    assert pool_size.pool_size(8, 141 * GIB, GIB, reserve, "GPU 0 free").size == 8


def test_tight_memory_keeps_what_fits_and_never_fewer_than_one() -> None:
    reserve = 20 * GIB
    assert pool_size.pool_size(4, 22 * GIB, GIB, reserve, "GPU 0 free").size == 2  # two fit, not four
    tight = pool_size.pool_size(2, 20 * GIB + GIB // 2, GIB, reserve, "GPU 0 free")
    assert tight.size == 1 and "tight" in tight.why
    assert pool_size.pool_size(2, 4 * GIB, GIB, reserve, "GPU 0 free").size == 1  # below the reserve
    assert pool_size.pool_size(2, None, GIB, reserve, "GPU 0 free").size == 1  # memory unknown
    assert pool_size.pool_size(0, 141 * GIB, GIB, reserve, "GPU 0 free").size == 1


def test_the_size_for_a_device_uses_its_default_maximum_and_the_catalogs_largest_limit() -> None:
    largest = pool_size.running_job_bytes("cuda")
    h200 = pool_size.choose("cuda", 0, None, free=lambda: 141 * GIB)
    assert h200.size == pool_size.DEFAULT_MAX_GPU == 2
    kept = (largest + pool_size.PARENT_MARGIN_BYTES + pool_size.WARM_CHILD_GPU_BYTES) / GIB
    assert f"{kept:.1f} GiB kept" in h200.why and "default on a GPU host" in h200.why
    small_gpu = pool_size.choose("cuda", 0, 4, free=lambda: 24 * GIB)  # below the largest limit
    assert small_gpu.size == 1
    assert pool_size.choose("cpu", None, None, free=lambda: 64 * GIB).size == pool_size.DEFAULT_MAX_CPU == 1
    assert pool_size.choose("cpu", None, 3, free=lambda: 64 * GIB).size == 3


def test_the_maximum_is_read_from_the_environment_at_the_edge() -> None:
    assert warm_pool_max_from_env({}) is None
    assert warm_pool_max_from_env({"GRIDSTRIDE_WARM_POOL_MAX": "3"}) == 3
    for bad in ("0", "-1", "two"):
        with pytest.raises(ValueError, match="GRIDSTRIDE_WARM_POOL_MAX"):
            warm_pool_max_from_env({"GRIDSTRIDE_WARM_POOL_MAX": bad})
    monkey = pytest.MonkeyPatch()
    monkey.setenv("GRIDSTRIDE_WARM_POOL_MAX", "3")
    try:
        assert JudgeConfig.from_env(device="cpu").warm_pool_max == 3
    finally:
        monkey.undo()


class StartUps:
    """When each process of `pool` was spawned and when it said it was warm (monotonic s)."""

    def __init__(self, pool: Any) -> None:
        self.pool = pool
        self.spawn = pool._spawn
        self.seen: list[list[float]] = []
        pool._spawn = self.logged

    def logged(self) -> Any:
        times = [time.monotonic(), float("inf")]
        self.seen.append(times)
        warm = self.spawn()

        def watch() -> None:
            poller = select.poll()
            poller.register(warm.channel_in.fileno(), select.POLLIN)
            if poller.poll(60_000):
                times[1] = time.monotonic()

        threading.Thread(target=watch, daemon=True).start()
        return warm

    def restore(self) -> None:
        self.pool._spawn = self.spawn


def timed_windows(report: Any, called: float) -> list[tuple[float, float]]:
    """The timed phases of a benchmark judging, monotonic s: the baselines (timed in the parent
    on a worker's first job of a problem) and each shape's go, after the gate, to its times."""
    timeline = dict(report.system["timeline_s"])
    gate = "waited for a warm child's start-up before timing the baselines"
    windows = [(called + timeline.get(gate, timeline["checked the source; ceilings"]), called + timeline["baselines"])]
    for shape in report.benchmarks:
        gate = f"waited for a warm child's start-up before timing {shape.name}"
        start = timeline.get(gate, timeline[f"benchmark {shape.name} (input set 0): checked"])
        windows.append((called + start, called + timeline[f"{shape.name}: timed"]))
    return windows


def test_a_pool_of_two_gives_the_job_right_behind_a_warm_child_and_starts_none_beside_a_timing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The memory figure, not this host's: the test is about two warm children, whatever is free.
    monkeypatch.setattr(pool_size, "host_available_bytes", lambda: 64 * GIB)
    config = JudgeConfig(device="cpu", limit_cap_seconds=60, warm_pool_max=2)
    config.policy = TimingPolicy.for_cpu()
    config.policy.max_seconds, config.policy.max_reps = 0.3, 8
    pool = config.child_pool(child_argv(), child_env(config), None)
    if not pool:
        pytest.skip("no sandbox on this host, so no warm pool")
    try:
        assert config.pool_size is not None and config.pool_size.size == pool.size == 2
        deadline = time.monotonic() + 60
        while pool.warm_idle() < 2 and time.monotonic() < deadline:  # filled one at a time
            assert pool.starting() <= 1
            time.sleep(0.02)
        assert pool.warm_idle() == 2
        starts = StartUps(pool)
        first = judge(ADD, config=config, mode="test")  # starts the next child at once
        called = time.monotonic()
        second = judge(ADD, config=config, mode="benchmark")  # right behind it
        assert first.verdict == second.verdict == "accepted", (first.message, second.message)
        starts.restore()
    finally:
        config.close_pool()
    assert first.system["warm_pool"] == {"size": 2, "child": "warm"}
    assert second.system["warm_pool"] == {"size": 2, "child": "warm"}
    timeline = dict(second.system["timeline_s"])
    # No start-up to wait for: the child reads its job at once (a start-up here takes over a second).
    start_up = second.system["child_warmed_up"]["start-up"]
    assert timeline["child ready"] - timeline["child started"] < min(1.0, start_up), (timeline, start_up)
    # Each job's replacement started while it ran, the second job's beside its tests, and no
    # start-up overlaps a timed phase: the timing waited until the replacement was warm.
    assert len(starts.seen) == 2, starts.seen
    first_shape_timed = timed_windows(second, called)[1][0]
    assert starts.seen[1][0] < first_shape_timed, (starts.seen, second.system["timeline_s"])  # beside the tests
    for spawned, warm in starts.seen:
        for start, end in timed_windows(second, called):
            # (The timeline rounds to the millisecond and starts a moment after `called`.)
            assert not start < spawned < end, (spawned, start, end, second.system["timeline_s"])
            assert not (spawned < end and warm > start + 0.02), (spawned, warm, start, end)
