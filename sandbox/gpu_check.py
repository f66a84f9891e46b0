"""Checks that a finished job left nothing running on its GPU.

A process that has fully exited has released its CUDA context (the driver tears it down while
the process closes its device files), so an empty cgroup normally means an idle GPU. These
checks catch the exceptions: a straggler that outlived the kill, or a context still listed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time


def compute_pids(gpu: int, timeout: float = 10.0) -> set[int] | None:
    """Host pids holding a compute context on `gpu` (None if nvidia-smi is unavailable)."""
    tool = shutil.which("nvidia-smi")
    if tool is None:
        return None
    try:
        out = subprocess.run(
            [tool, "-i", str(gpu), "--query-compute-apps=pid", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return {int(line) for line in out.split() if line.strip().isdigit()}


def lingering(gpu: int, pids: set[int], grace: float = 5.0) -> list[int]:
    """Which of `pids` (stragglers seen after the job ended) still hold a context on `gpu`."""
    if not pids:
        return []
    deadline = time.monotonic() + grace
    while True:
        held = compute_pids(gpu)
        if held is None:
            return []
        left = sorted(held & pids)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


_uuids: dict[int, str | None] = {}


def uuid(gpu: int) -> str | None:
    """The GPU's UUID (cached). Inside the sandbox only this GPU's device node exists, so a host
    index in CUDA_VISIBLE_DEVICES would point at nothing; the UUID names it unambiguously."""
    if gpu not in _uuids:
        tool = shutil.which("nvidia-smi")
        found = None
        if tool is not None:
            try:
                out = subprocess.run(
                    [tool, "-i", str(gpu), "--query-gpu=uuid", "--format=csv,noheader"],
                    capture_output=True,
                    text=True,
                    timeout=30,
                    check=True,
                ).stdout.strip()
                found = out if out.startswith(("GPU-", "MIG-")) else None
            except (OSError, subprocess.SubprocessError):
                found = None
        _uuids[gpu] = found
    return _uuids[gpu]


_minors: dict[int, int] = {}
_MINOR_LINE = re.compile(r"^\s*Minor Number\s*:\s*(\d+)\s*$", re.MULTILINE)


def minor_in(query_output: str) -> int | None:
    """The "Minor Number" of `nvidia-smi -q -i N` output (None where it is missing or N/A)."""
    found = _MINOR_LINE.search(query_output)
    return int(found.group(1)) if found else None


def minor(gpu: int) -> int:
    """The minor number of GPU `gpu` (its /dev/nvidiaN), cached. Where nvidia-smi cannot say, the
    index itself: the two agree on a host that sees all its GPUs in PCI order."""
    if gpu not in _minors:
        tool = shutil.which("nvidia-smi")
        found = None
        if tool is not None:
            try:
                out = subprocess.run(
                    [tool, "-q", "-i", str(gpu)], capture_output=True, text=True, timeout=30, check=True
                ).stdout
                found = minor_in(out)
            except (OSError, subprocess.SubprocessError):
                found = None
        _minors[gpu] = gpu if found is None else found
    return _minors[gpu]
