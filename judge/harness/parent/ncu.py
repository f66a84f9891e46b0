"""Profile mode: Nsight Compute on one call, digested per kernel (stdlib only)."""

from __future__ import annotations

import csv
import io
import shutil
import subprocess

from judge.protocol import KernelDigest

METRICS = (
    "gpu__time_duration.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "launch__registers_per_thread",
    "launch__shared_mem_per_block_static",
    "launch__shared_mem_per_block_dynamic",
)
_TIME_SCALE_US = {
    "nsecond": 1e-3,
    "ns": 1e-3,
    "usecond": 1.0,
    "us": 1.0,
    "msecond": 1e3,
    "ms": 1e3,
    "second": 1e6,
    "s": 1e6,
}
_BYTES_SCALE = {"byte": 1, "kbyte": 1000, "mbyte": 1000**2, "kibyte": 1024, "mibyte": 1024**2}


def find_ncu() -> str | None:
    found = shutil.which("ncu")
    if found:
        return found
    for candidate in ("/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute/ncu"):
        if shutil.which(candidate):
            return candidate
    return None


def ncu_works(ncu: str) -> str | None:
    """The version line, or None when ncu does not run."""
    try:
        out = subprocess.run([ncu, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    lines = [line for line in out.stdout.splitlines() if line.strip()]
    return lines[-1] if lines else "ncu"


def command(ncu: str) -> list[str]:
    return [
        ncu,
        "--clock-control",
        "none",
        "--profile-from-start",
        "off",
        "--metrics",
        ",".join(METRICS),
        "--csv",
    ]


def _number(text: str) -> float | None:
    cleaned = text.replace(",", "").strip()
    if not cleaned or cleaned.lower() in ("n/a", "nan"):
        return None
    try:
        return float(cleaned)
    except ValueError:
        return None


def parse(output: str) -> list[KernelDigest]:
    """Digest ncu's --csv output (one row per kernel x metric) into one entry per kernel name."""
    lines = [line for line in output.splitlines() if line.startswith('"')]
    if not lines:
        return []
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    per_launch: dict[str, dict[str, object]] = {}
    for row in rows:
        launch_id = row.get("ID", "")
        name = row.get("Kernel Name", "?")
        entry = per_launch.setdefault(launch_id, {"name": name})
        metric = row.get("Metric Name", "")
        unit = (row.get("Metric Unit") or "").strip().lower()
        value = _number(row.get("Metric Value", ""))
        if value is None:
            continue
        if metric == "gpu__time_duration.sum":
            value *= _TIME_SCALE_US.get(unit, 1e-3)
        elif metric.startswith("launch__shared_mem"):
            value *= _BYTES_SCALE.get(unit, 1)
        entry[metric] = value
    kernels: dict[str, KernelDigest] = {}
    for entry in per_launch.values():
        name = str(entry["name"])
        shared = sum(float(entry.get(m, 0.0) or 0.0) for m in METRICS[5:7])  # type: ignore[arg-type,misc]
        digest = kernels.get(name)
        duration = entry.get("gpu__time_duration.sum")
        if digest is None:
            kernels[name] = KernelDigest(
                name=name,
                duration_us=float(duration) if duration is not None else None,  # type: ignore[arg-type]
                dram_sol_pct=_opt(entry.get(METRICS[1])),
                compute_sol_pct=_opt(entry.get(METRICS[2])),
                achieved_occupancy_pct=_opt(entry.get(METRICS[3])),
                registers=int(entry[METRICS[4]]) if METRICS[4] in entry else None,  # type: ignore[call-overload]
                shared_bytes=int(shared),
                calls=1,
            )
        else:
            digest.calls += 1
            if duration is not None:
                digest.duration_us = (digest.duration_us or 0.0) + float(duration)  # type: ignore[arg-type]
    return sorted(kernels.values(), key=lambda k: -(k.duration_us or 0.0))


def _opt(value: object) -> float | None:
    return None if value is None else round(float(value), 2)  # type: ignore[arg-type]
