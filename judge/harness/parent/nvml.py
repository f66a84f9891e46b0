"""What the GPU's power management did while a shape was timed, from NVML's cumulative counters.

A compute-bound kernel's time follows the SM clock, and the clock follows power and temperature:
on the H200 the same GEMM's median moved by up to 3% between judgings. Sampling the clock beside
timed calls would disturb them, so the parent reads NVML's running totals twice per shape:
while the child waits for its go before the warm-up, and once the times of its last timed call
have arrived. The totals are the energy used and how long the driver held the clock down for
power or for heat. Their differences give the mean board power and the share of the window spent
capped, per shape (report.system["gpu_during_timing"]).

NVML comes with the driver (libnvidia-ml.so.1); through ctypes, so no extra package. Where it
is missing the readings are None and the report says nothing about power. The warm pool's size
reads the device's free memory here too (free_memory; parent/pool_size.py).
"""

from __future__ import annotations

import ctypes
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("judge.harness")

_NVML_PERF_POLICY_POWER = 0
_NVML_PERF_POLICY_THERMAL = 1
_NVML_CLOCK_SM = 1


class _ViolationTime(ctypes.Structure):
    _fields_ = [("reference_time", ctypes.c_ulonglong), ("violation_time", ctypes.c_ulonglong)]


@dataclass(frozen=True)
class Reading:
    at: float  # time.monotonic()
    energy_mj: int
    power_capped_ns: int
    thermal_capped_ns: int
    sm_clock_mhz: int


_lock = threading.Lock()
_library: Any = None
_handles: dict[int, ctypes.c_void_p] = {}


def _nvml() -> Any:
    global _library
    with _lock:
        if _library is None:
            try:
                library = ctypes.CDLL("libnvidia-ml.so.1")
                if library.nvmlInit_v2() != 0:
                    raise OSError("nvmlInit_v2 failed")
                _library = library
            except OSError as exc:
                log.info("NVML not available (%s): no power readings in reports", exc)
                _library = False
        return _library


class _Memory(ctypes.Structure):
    _fields_ = [("total", ctypes.c_ulonglong), ("free", ctypes.c_ulonglong), ("used", ctypes.c_ulonglong)]


def _handle(library: Any, gpu: int) -> ctypes.c_void_p | None:
    handle = _handles.get(gpu)
    if handle is None:
        handle = ctypes.c_void_p()
        if library.nvmlDeviceGetHandleByIndex_v2(ctypes.c_uint(gpu), ctypes.byref(handle)) != 0:
            return None
        _handles[gpu] = handle
    return handle


def free_memory(gpu: int) -> int | None:
    """Free device memory of physical GPU `gpu` in bytes, or None where NVML cannot tell."""
    library = _nvml()
    handle = _handle(library, gpu) if library else None
    if handle is None:
        return None
    memory = _Memory()
    if library.nvmlDeviceGetMemoryInfo(handle, ctypes.byref(memory)) != 0:
        return None
    return int(memory.free)


def read(gpu: int) -> Reading | None:
    """NVML's running totals for physical GPU `gpu` now, or None where NVML cannot tell."""
    library = _nvml()
    handle = _handle(library, gpu) if library else None
    if handle is None:
        return None
    energy = ctypes.c_ulonglong()
    power, thermal = _ViolationTime(), _ViolationTime()
    clock = ctypes.c_uint()
    if (
        library.nvmlDeviceGetTotalEnergyConsumption(handle, ctypes.byref(energy)) != 0
        or library.nvmlDeviceGetViolationStatus(handle, _NVML_PERF_POLICY_POWER, ctypes.byref(power)) != 0
        or library.nvmlDeviceGetViolationStatus(handle, _NVML_PERF_POLICY_THERMAL, ctypes.byref(thermal)) != 0
        or library.nvmlDeviceGetClockInfo(handle, _NVML_CLOCK_SM, ctypes.byref(clock)) != 0
    ):
        return None
    return Reading(time.monotonic(), energy.value, power.violation_time, thermal.violation_time, clock.value)


def window(before: Reading, after: Reading) -> dict[str, float] | None:
    """Mean board power and the share of the window the clock was held down, between two readings."""
    seconds = after.at - before.at
    if seconds <= 0 or after.energy_mj < before.energy_mj:
        return None
    ns = seconds * 1e9
    return {
        "seconds": round(seconds, 3),
        "mean_power_w": round((after.energy_mj - before.energy_mj) / 1000.0 / seconds, 1),
        "power_capped_pct": round(min(100.0, 100.0 * (after.power_capped_ns - before.power_capped_ns) / ns), 1),
        "thermal_capped_pct": round(min(100.0, 100.0 * (after.thermal_capped_ns - before.thermal_capped_ns) / ns), 1),
        "sm_clock_mhz_after": float(after.sm_clock_mhz),
    }
