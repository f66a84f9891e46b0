"""System information carried by every report: the hardware and software behind the numbers."""

from __future__ import annotations

import importlib.metadata
import platform
import shutil
import subprocess
from typing import Any


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _cupy_version() -> str | None:
    for name in ("cupy", "cupy-cuda13x", "cupy-cuda12x"):
        found = _version(name)
        if found:
            return found
    return None


def nvidia_smi(query: str, gpu: int | None) -> list[str] | None:
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None
    cmd = [exe, f"--query-gpu={query}", "--format=csv,noheader,nounits"]
    if gpu is not None:
        cmd.append(f"--id={gpu}")
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0 or not out.stdout.strip():
        return None
    return [part.strip() for part in out.stdout.strip().splitlines()[0].split(",")]


def clocks(gpu: int | None) -> dict[str, float]:
    """SM and memory clocks right now (MHz), when nvidia-smi is present."""
    values = nvidia_smi("clocks.sm,clocks.mem", gpu)
    if not values or len(values) < 2:
        return {}
    try:
        return {"sm_clock_mhz": float(values[0]), "mem_clock_mhz": float(values[1])}
    except ValueError:
        return {}


def static_info(device: str, gpu: int | None) -> dict[str, Any]:
    info: dict[str, Any] = {
        "device": device,
        "python": platform.python_version(),
        "torch": _version("torch"),
        "triton": _version("triton"),
        "cupy": _cupy_version(),
        "numpy": _version("numpy"),
        "platform": platform.platform(terse=True),
    }
    if device == "cuda":
        import torch

        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        info.update(
            {
                "gpu": props.name,
                "compute_capability": f"{props.major}.{props.minor}",
                "sm_count": props.multi_processor_count,
                "gpu_memory_bytes": props.total_memory,
                "l2_bytes": int(getattr(props, "L2_cache_size", 0) or 0),
                "cuda": torch.version.cuda,
            }
        )
        smi = nvidia_smi("driver_version,clocks.max.sm,power.limit", gpu)
        if smi:
            info["driver"] = smi[0]
            info["max_sm_clock_mhz"] = smi[1] if len(smi) > 1 else None
            info["power_limit_w"] = smi[2] if len(smi) > 2 else None
    else:
        info["gpu"] = None
    return info
