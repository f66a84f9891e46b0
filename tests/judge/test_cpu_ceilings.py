"""A CPU host measures its own roofs (memory bandwidth, fp32, bf16 and fp8 FLOP/s), once per process
(whatever number of JudgeConfigs it makes)."""

from __future__ import annotations

from judge.harness.parent import ceilings
from judge.harness.parent.config import JudgeConfig


def test_a_cpu_host_measures_plausible_roofs_of_its_own() -> None:
    # measure_cpu()'s figures as the process keeps them (the first CPU judging of the suite has
    # already measured them, in tens of seconds on the two-core machine: not measured twice).
    found = ceilings.cpu_ceilings()
    # A CPU moves between 0.5 GB/s and a few hundred GB/s, and does between 1 GFLOP/s and 100 TFLOP/s.
    assert 0.5 < found["dram_gbps"] < 1000
    assert 1e-3 < found["fp32_tflops"] < 100 and 0 < found["bf16_tflops"] < 100
    assert 0 < found["fp8_tflops"] < 100


def test_the_cpu_roofs_are_measured_once_per_process(monkeypatch) -> None:
    calls: list[int] = []

    def fake() -> dict[str, float]:
        calls.append(1)
        return {"dram_gbps": 10.0, "fp32_tflops": 0.1, "bf16_tflops": 0.05}

    monkeypatch.setattr(ceilings, "measure_cpu", fake)
    monkeypatch.setattr(ceilings, "_cpu_measured", None)
    first, second = JudgeConfig(device="cpu").get_ceilings(), JudgeConfig(device="cpu").get_ceilings()
    assert first == second == {"dram_gbps": 10.0, "fp32_tflops": 0.1, "bf16_tflops": 0.05}
    assert len(calls) == 1
