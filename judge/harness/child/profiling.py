"""The kernels a call launched, seen by the PyTorch profiler: the library-compute and no-kernel
rules read them (docs/judging.md section 6)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import torch


def profiler_sanity() -> list[str]:
    """Kernel names seen by the profiler for one harness-launched fill (to prove it works)."""
    from torch.profiler import ProfilerActivity, profile

    x = torch.empty(1 << 20, device="cuda")
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        x.fill_(1.0)
        torch.cuda.synchronize()
    return [e.name for e in prof.events() if str(getattr(e, "device_type", "")).endswith("CUDA")]


def kernel_list(call: Callable[[], Any]) -> list[tuple[str, float]]:
    """The kernels one call launched, from the profiler (CUDA activity only)."""
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    # The profiler's own notice would otherwise show up as the submission's stderr.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*Profiler clears events.*")
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            call()
            torch.cuda.synchronize()
    names: dict[str, float] = {}
    for event in prof.events():
        if str(getattr(event, "device_type", "")).endswith("CUDA") and event.name:
            try:
                us = float(event.time_range.elapsed_us())
            except (AttributeError, TypeError, ValueError):
                us = 0.0
            names[event.name] = names.get(event.name, 0.0) + us
    return list(names.items())
