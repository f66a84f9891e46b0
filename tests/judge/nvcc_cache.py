"""nvcc outcomes for the CPU tests, cached by (nvcc version, flags, source bytes): an unchanged
file is not rebuilt, any change to it or to the compiler is, and a file two tests compile (a
ladder rung that is also a corpus file or an expert) is compiled once per machine."""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

from judge.harness.parent import compile as compile_flags

NVCC_FLAGS = [*compile_flags.FLAGS, *compile_flags.arch_flags("sm_90")]  # the judge's command line on an H100/H200
NVCC_CACHE = Path(tempfile.gettempdir()) / "gridstride-content-nvcc"


@functools.cache
def nvcc_version() -> str | None:
    nvcc = shutil.which("nvcc")
    return subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout if nvcc else None


def compile_outcome(path: Path, out_dir: Path) -> tuple[int, str]:
    """(nvcc's exit code, the end of its stderr) for `path` with the judge's flags."""
    nvcc, version = shutil.which("nvcc"), nvcc_version()
    assert nvcc is not None and version is not None, "nvcc is not installed"
    key = hashlib.sha256(json.dumps([version, NVCC_FLAGS]).encode() + path.read_bytes()).hexdigest()
    NVCC_CACHE.mkdir(parents=True, exist_ok=True)
    cached = NVCC_CACHE / f"{key}.json"
    if cached.is_file():
        code, log = json.loads(cached.read_text())
        return code, log
    cmd = [nvcc, *NVCC_FLAGS, "-o", str(out_dir / f"{key[:16]}.so"), str(path)]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    partial = cached.with_suffix(f".{uuid.uuid4().hex}.tmp")  # another test process may read it meanwhile
    partial.write_text(json.dumps([result.returncode, result.stderr[-4000:]]))
    partial.replace(cached)
    return result.returncode, result.stderr[-4000:]
