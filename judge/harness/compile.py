"""CUDA C++ submissions: nvcc in the sandbox, a trusted cache of compiled libraries.

`nvcc -shared -Xcompiler -fPIC -O3 -arch=sm_XY` (XY from the worker's GPU) builds a shared
library exposing `extern "C" void solve(...)`, later called through ctypes. Compilation runs as
untrusted work (nvcc parses attacker-controlled source): in the sandbox, with its own time and
output limits. The library comes back through a pipe, and only this process writes the cache,
keyed by source hash + arch + nvcc version + flags, so a cached file is exactly what nvcc
produced for that source.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from judge.harness import framing, launch
from judge.harness.errors import scrub_paths, trim
from judge.harness.nvcc_child import FLAGS

MAX_LIBRARY_BYTES = 64 << 20
ELF_MAGIC = b"\x7fELF"


@dataclass
class CompileOutcome:
    verdict: str | None  # None: compiled; else compile_error | time_limit | memory_limit | internal_error
    library: Path | None = None
    log: str = ""
    message: str = ""
    cached: bool = False
    seconds: float = 0.0


def find_nvcc() -> str | None:
    found = shutil.which("nvcc")
    if found:
        return found
    for candidate in ("/usr/local/cuda/bin/nvcc", "/opt/cuda/bin/nvcc"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


@functools.lru_cache(maxsize=4)
def nvcc_version(nvcc: str) -> str:
    out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=60)
    lines = [line for line in out.stdout.splitlines() if line.strip()]
    return lines[-1].strip() if lines else "unknown"


def gpu_arch(device: str) -> str:
    """sm_XY of the worker's GPU; sm_90 (H100/H200) where there is no GPU to ask."""
    if device == "cuda":
        import torch

        major, minor = torch.cuda.get_device_capability()
        return f"sm_{major}{minor}"
    return "sm_90"


def cache_key(source: str, arch: str, version: str) -> str:
    digest = hashlib.sha256()
    for part in (source, arch, version, " ".join(FLAGS)):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:40]


def compile_cuda(
    source: str,
    *,
    source_file: Path,
    arch: str,
    cache_dir: Path,
    seconds: float,
    env: dict[str, str],
    gpu: int | None,
) -> CompileOutcome:
    """Compile (or find in the cache) the library for `source`, written beforehand to source_file."""
    began = time.monotonic()
    nvcc = find_nvcc()
    if nvcc is None:
        return CompileOutcome(verdict="internal_error", message="nvcc is not installed on this judge host")
    version = nvcc_version(nvcc)
    cache_dir.mkdir(parents=True, exist_ok=True)
    target = cache_dir / f"{cache_key(source, arch, version)}.so"
    if target.is_file():
        return CompileOutcome(verdict=None, library=target, cached=True, seconds=time.monotonic() - began)

    child = launch.start(
        [
            sys.executable,
            "-m",
            "judge.harness.nvcc_child",
            "--source",
            str(source_file),
            "--arch",
            arch,
            "--nvcc",
            nvcc,
        ],
        limits=launch.RunLimits(wall_seconds=seconds, max_output_bytes=64 << 10, memory_bytes=8 << 30),
        env=env,
        cwd=source_file.parent,
        gpu=None,
        readable=(source_file.parent,),
    )
    result: dict[str, object] = {}

    def read() -> None:
        try:
            assert child.results_in is not None
            result["frame"] = framing.read_frame(child.results_in, max_blob=MAX_LIBRARY_BYTES)
        except (framing.FrameError, framing.ChannelClosed, OSError) as exc:
            result["error"] = exc

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    if child.job_out is not None:
        child.job_out.close()
    reader.join(timeout=seconds)
    if reader.is_alive():
        child.kill("wall")
    exit_ = child.wait(timeout=5)
    reader.join(timeout=5)
    child.close_channels()
    elapsed = time.monotonic() - began
    if exit_.limit_hit == "wall":
        return CompileOutcome(
            verdict="time_limit", message=f"compilation took longer than {seconds:g} s", seconds=elapsed
        )
    if exit_.limit_hit == "memory":
        return CompileOutcome(verdict="memory_limit", message="the compiler ran out of memory", seconds=elapsed)
    if "frame" not in result:
        detail = trim(scrub_paths(exit_.stderr, {str(source_file.parent) + "/": ""}), 4000)
        return CompileOutcome(
            verdict="internal_error",
            message=f"the compiler process ended without a result (exit {exit_.exit_code}, signal {exit_.signal})",
            log=detail,
            seconds=elapsed,
        )
    header, blob = result["frame"]  # type: ignore[misc]
    log = trim(scrub_paths(str(header.get("log", "")), {str(source_file.parent) + "/": ""}))
    if not header.get("ok"):
        return CompileOutcome(
            verdict="compile_error", log=log, message="nvcc could not compile your code", seconds=elapsed
        )
    if blob is None or bytes(blob[:4]) != ELF_MAGIC:
        return CompileOutcome(
            verdict="internal_error", message="the compiler returned something that is not a library", seconds=elapsed
        )
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(blob)
    os.chmod(tmp, 0o444)
    os.replace(tmp, target)
    return CompileOutcome(verdict=None, library=target, log=log, seconds=elapsed)
