"""The CLI's ceilings cache: one process measures at a time, the others take its figures
(judge/harness/parent/ceilings.py, measure_or_load)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from judge.harness.parent import ceilings

FIGURES = {"dram_gbps": 4400.0, "bf16_tflops": 790.0, "fp32_tflops": 50.0, "fp8_tflops": 1500.0}


@pytest.fixture
def fake_gpu(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    state = {"calls": 0, "running": 0, "most_at_once": 0}
    lock = threading.Lock()

    def measure() -> dict[str, float]:
        with lock:
            state["calls"] += 1
            state["running"] += 1
            state["most_at_once"] = max(state["most_at_once"], state["running"])
        time.sleep(0.3)  # long enough for the other threads to arrive while this one measures
        with lock:
            state["running"] -= 1
        return dict(FIGURES)

    monkeypatch.setattr(ceilings, "measure", measure)
    monkeypatch.setattr(ceilings, "gpu_identity", lambda: "NVIDIA H200|GPU-test")
    return state


def test_processes_sharing_the_cache_measure_one_at_a_time_and_once(fake_gpu: dict[str, int], tmp_path: Path) -> None:
    cache = tmp_path / "ceilings.json"
    results: list[dict[str, float]] = []
    threads = [threading.Thread(target=lambda: results.append(ceilings.measure_or_load(cache))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert fake_gpu["most_at_once"] == 1
    assert fake_gpu["calls"] == 1, "the ones that waited take the figures the first one measured"
    assert results == [FIGURES] * 4


def test_a_stale_or_foreign_cache_is_measured_again(fake_gpu: dict[str, int], tmp_path: Path) -> None:
    cache = tmp_path / "ceilings.json"
    stale = {"gpu": "NVIDIA H200|GPU-test", "measured_at": time.time() - 2 * ceilings.MAX_AGE_SECONDS,
             "ceilings": {**FIGURES, "fp32_tflops": 25.0}}  # fmt: skip
    cache.write_text(json.dumps(stale))
    assert ceilings.measure_or_load(cache) == FIGURES
    cache.write_text(json.dumps({**stale, "measured_at": time.time(), "gpu": "NVIDIA H100|GPU-other"}))
    assert ceilings.measure_or_load(cache) == FIGURES
    assert fake_gpu["calls"] == 2
    assert ceilings.measure_or_load(cache) == FIGURES and fake_gpu["calls"] == 2  # now fresh: read
