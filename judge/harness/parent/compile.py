"""CUDA C++ submissions: nvcc in the sandbox, a trusted cache of compiled libraries.

`nvcc -shared -Xcompiler -fPIC -O3 -gencode=arch=compute_XYa,code=sm_XYa` (XY from the worker's
GPU; the architecture-specific "a" target from sm_90 on, so Hopper's wgmma, setmaxnreg and TMA
multicast are available; `-arch=sm_XY` before that) builds a shared library exposing
`extern "C" void solve(...)`, later called through ctypes. Compilation runs as
untrusted work (nvcc parses attacker-controlled source): in the sandbox, with its own time and
output limits, the source written into its private /tmp by the launcher. The library comes back
through a pipe (sandbox.run_collect), and only this process writes the cache, keyed by source
hash + arch + nvcc version + flags, so a cached file is exactly what nvcc produced for that source.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from judge.harness.common.errors import scrub_paths, trim
from judge.harness.parent import launch

FLAGS = ["-shared", "-Xcompiler", "-fPIC", "-O3"]
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


# The directory of a file a diagnostic points into: at a line's start ("/usr/local/cuda-13.0/bin/
# ../targets/x86_64-linux/include/cuda_bf16.h(4377): error") or after "from " (gcc's include
# chain). Only such positions: the source lines nvcc echoes stay as written.
HEADER_DIR = re.compile(r"(?:^|(?<=from ))/(?:[^\s:()/,]+/)+(?=[^\s:()/,]+[:(,])", re.MULTILINE)


def strip_header_dirs(log: str) -> str:
    """Drop the host directories of toolkit and system headers from compiler output: a contestant
    sees `cuda_bf16.h(4377): error`, not where the judge host installed CUDA."""
    return HEADER_DIR.sub("", log)


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


def arch_flags(arch: str) -> list[str]:
    """nvcc's target for sm_XY. From compute capability 9.0 on, the architecture-specific target
    (sm_90a): a library is built for the worker's own GPU, and without it wgmma and setmaxnreg do
    not assemble. The -gencode form, because `-arch=sm_90a` also runs a plain sm_90 pass that
    rejects those instructions (nvcc 13.0)."""
    digits = arch.removeprefix("sm_")
    if not digits.isdigit():
        raise ValueError(f"not an sm_XY architecture: {arch!r}")
    if int(digits) >= 90:
        return [f"-gencode=arch=compute_{digits}a,code=sm_{digits}a"]
    return [f"-arch={arch}"]


def cache_key(source: str, arch: str, version: str) -> str:
    digest = hashlib.sha256()
    for part in (source, arch, version, " ".join(FLAGS + arch_flags(arch))):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:40]


def compile_cuda(
    source: str,
    *,
    arch: str,
    cache_dir: Path,
    seconds: float,
    env: dict[str, str],
    work_dir: str | None = None,
) -> CompileOutcome:
    """Compile (or find in the cache) the shared library for `source`."""
    began = time.monotonic()
    nvcc = find_nvcc()
    if nvcc is None:
        return CompileOutcome(verdict="internal_error", message="nvcc is not installed on this judge host")
    version = nvcc_version(nvcc)
    name = f"{cache_key(source, arch, version)}.so"
    target = cache_dir / name
    if target.is_file() and not target.is_symlink():
        return CompileOutcome(verdict=None, library=target, cached=True, seconds=time.monotonic() - began)

    exit_, collected = launch.run_files(
        [nvcc, *FLAGS, *arch_flags(arch), "-o", "{dir}/solution.so", "solution.cu"],
        limits=launch.RunLimits(wall_seconds=seconds, max_output_bytes=64 << 10, memory_bytes=8 << 30),
        env=env,
        gpu=None,
        files={"solution.cu": source.encode("utf-8")},
        collect=("solution.so",),
        collect_max_bytes=MAX_LIBRARY_BYTES,
        work_dir=work_dir,
    )
    elapsed = time.monotonic() - began
    log = trim(strip_header_dirs(scrub_paths((exit_.stdout + exit_.stderr).strip(), {"/tmp/": "", "{dir}/": ""})))
    if exit_.limit_hit in ("wall", "cpu"):
        return CompileOutcome(
            verdict="time_limit",
            message=(
                f"compile time limit: nvcc compiling solution.cu took longer than this problem's {seconds:g} s "
                "(compile_seconds); deep template recursion or huge unrolled loops are the usual cause"
            ),
            log=log,
            seconds=elapsed,
        )
    if exit_.limit_hit == "memory":
        return CompileOutcome(
            verdict="memory_limit", message="the compiler ran out of memory", log=log, seconds=elapsed
        )
    if exit_.exit_code != 0:
        return CompileOutcome(
            verdict="compile_error",
            log=log or f"nvcc exited with status {exit_.exit_code} (signal {exit_.signal})",
            message="nvcc could not compile your code",
            seconds=elapsed,
        )
    library = collected.get("solution.so")
    if library is None and "collect limit" in exit_.not_collected.get("solution.so", ""):
        # The user's doing: large initialised arrays are stored in the library itself.
        return CompileOutcome(
            verdict="compile_error",
            message=(
                f"the compiled library is larger than the {MAX_LIBRARY_BYTES >> 20} MiB limit; large initialised "
                "arrays are stored in it: allocate them with cudaMalloc and fill them in solve() instead"
            ),
            log=log,
            seconds=elapsed,
        )
    if library is None or library[:4] != ELF_MAGIC:
        why = exit_.not_collected.get("solution.so") or "not an ELF library"
        return CompileOutcome(
            verdict="internal_error",
            message=f"nvcc succeeded but its library could not be collected ({why}): a fault on the judge's side",
            log=log,
            seconds=elapsed,
        )
    cache_dir.mkdir(parents=True, exist_ok=True)
    os.chmod(cache_dir, 0o755)
    path = launch.write_cache_file(str(cache_dir), name, library)
    return CompileOutcome(verdict=None, library=Path(path), log=log, seconds=elapsed)
