"""Power readings around a shape's timing (judge/harness/nvml.py), without a GPU."""

from __future__ import annotations

from judge.harness.nvml import Reading, window


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
