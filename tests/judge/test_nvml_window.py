"""Power readings around a shape's timing (judge/harness/parent/nvml.py), without a GPU."""

from __future__ import annotations

from typing import Any

import pytest

from judge.harness.parent.nvml import Reading, window


def test_the_window_gives_mean_power_and_the_share_spent_capped() -> None:
    before = Reading(at=100.0, energy_mj=5_000_000, power_capped_ns=10**9, thermal_capped_ns=0, sm_clock_mhz=1980)
    # 2 s later: 1300 J used (650 W), the clock held down for power 1.5 s of the 2, never for heat.
    after = Reading(
        at=102.0, energy_mj=6_300_000, power_capped_ns=2_500_000_000, thermal_capped_ns=0, sm_clock_mhz=1830
    )
    assert window(before, after) == {
        "seconds": 2.0,
        "mean_power_w": 650.0,
        "power_capped_pct": 75.0,
        "thermal_capped_pct": 0.0,
        "sm_clock_mhz_after": 1830.0,
    }


def test_a_counter_that_went_backwards_gives_no_window() -> None:
    before = Reading(at=100.0, energy_mj=6_000_000, power_capped_ns=0, thermal_capped_ns=0, sm_clock_mhz=1980)
    after = Reading(at=101.0, energy_mj=5_000_000, power_capped_ns=0, thermal_capped_ns=0, sm_clock_mhz=1980)
    assert window(before, after) is None
    assert window(after, before) is None  # no time passed backwards either


class FakeNvml:
    """Stands in for libnvidia-ml: each call fills its out-parameters through ctypes.byref."""

    def __init__(self, status: int = 0) -> None:
        self.status = status
        self.indices: list[int] = []

    def nvmlDeviceGetHandleByIndex_v2(self, index: Any, handle: Any) -> int:
        self.indices.append(index.value)
        handle._obj.value = 0xABC
        return 0

    def nvmlDeviceGetTotalEnergyConsumption(self, handle: Any, energy: Any) -> int:
        assert handle.value == 0xABC
        energy._obj.value = 123_456
        return self.status

    def nvmlDeviceGetViolationStatus(self, handle: Any, policy: int, out: Any) -> int:
        out._obj.violation_time = {0: 7_000, 1: 9}[policy]  # power, thermal
        return 0

    def nvmlDeviceGetClockInfo(self, handle: Any, clock: int, out: Any) -> int:
        assert clock == 1  # NVML_CLOCK_SM
        out._obj.value = 1965
        return 0


def test_a_reading_takes_nvmls_running_totals(monkeypatch: pytest.MonkeyPatch) -> None:
    from judge.harness.parent import nvml

    fake = FakeNvml()
    monkeypatch.setattr(nvml, "_nvml", lambda: fake)
    monkeypatch.setattr(nvml, "_handles", {})
    reading = nvml.read(3)
    assert reading is not None and fake.indices == [3]
    assert (reading.energy_mj, reading.power_capped_ns, reading.thermal_capped_ns, reading.sm_clock_mhz) == (
        123_456,
        7_000,
        9,
        1965,
    )
    nvml.read(3)
    assert fake.indices == [3]  # the handle is looked up once


def test_no_reading_where_nvml_fails_or_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    from judge.harness.parent import nvml

    monkeypatch.setattr(nvml, "_handles", {})
    monkeypatch.setattr(nvml, "_nvml", lambda: FakeNvml(status=3))  # NVML_ERROR_NOT_SUPPORTED
    assert nvml.read(0) is None
    monkeypatch.setattr(nvml, "_nvml", lambda: False)
    assert nvml.read(0) is None
