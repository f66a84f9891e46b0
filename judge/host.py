"""What kind of judge host this is: `detect() -> HostInfo` (the worker picks its queue from it).

gpu_model is the queue suffix: "h200", "h100", "a100", ... or "cpu" where there is no usable GPU.
Detection asks torch (CUDA builds) and never raises for a missing GPU.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field

_FAMILIES = (
    "GH200",
    "GB200",
    "H200",
    "H100",
    "H800",
    "H20",
    "B200",
    "B100",
    "A100",
    "A800",
    "A10G",
    "A10",
    "A40",
    "L40S",
    "L40",
    "L4",
    "T4",
    "V100",
)


@dataclass
class HostInfo:
    gpu_model: str
    gpu_name: str
    device: str
    capabilities: list[str] = field(default_factory=list)


def gpu_model_of(name: str) -> str:
    """Queue suffix for a device name: "NVIDIA H200" -> "h200", "NVIDIA GeForce RTX 4090" -> "rtx4090"."""
    upper = name.upper()
    for family in _FAMILIES:
        if re.search(rf"(?<![A-Z0-9]){family}(?![0-9])", upper):
            return family.lower()
    rtx = re.search(r"RTX\s*(A?\d{4})", upper)
    if rtx:
        return f"rtx{rtx.group(1).lower()}"
    slug = re.sub(r"[^a-z0-9]+", "", name.lower().replace("nvidia", ""))
    return slug[:24] or "gpu"


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def detect() -> HostInfo:
    capabilities: list[str] = []
    try:
        import torch
    except ImportError:
        return HostInfo(gpu_model="cpu", gpu_name="", device="cpu", capabilities=[])
    capabilities.append("pytorch")
    if _importable("triton"):
        capabilities.append("triton")
    nvcc = shutil.which("nvcc") is not None or shutil.which("/usr/local/cuda/bin/nvcc") is not None
    if not torch.cuda.is_available():
        if nvcc:
            capabilities.append("nvcc")
        return HostInfo(gpu_model="cpu", gpu_name="", device="cpu", capabilities=capabilities)
    name = torch.cuda.get_device_name(torch.cuda.current_device())
    if nvcc:
        capabilities += ["cuda", "nvcc"]
    if _importable("cupy"):
        capabilities.append("cupy")
    if shutil.which("ncu") or shutil.which("/usr/local/cuda/bin/ncu"):
        capabilities.append("ncu")
    return HostInfo(gpu_model=gpu_model_of(name), gpu_name=name, device="cuda", capabilities=capabilities)
