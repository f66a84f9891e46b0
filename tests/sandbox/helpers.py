"""Helpers for the sandbox tests: running hostile programs and reading their reports."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from sandbox import Limits, Result, capabilities, run

HOSTILE = Path(__file__).resolve().parent / "hostile"
# Small limits so every overrun ends in seconds on the 2-core dev machine.
SMALL = Limits(
    wall_seconds=10,
    cpu_seconds=3,
    memory_bytes=256 << 20,
    max_processes=64,
    max_open_files=256,
    max_file_bytes=16 << 20,
    max_output_bytes=4 << 10,
    tmp_bytes=32 << 20,
)


def hostile(name: str, *args: str, limits: Limits = SMALL, **kwargs: Any) -> Result:
    """Run tests/sandbox/hostile/<name> with the judge's Python inside a sandbox."""
    kwargs.setdefault("readable", [str(HOSTILE)])
    return run([sys.executable, str(HOSTILE / name), *args], limits=limits, **kwargs)


def report(result: Result) -> dict[str, Any]:
    """The JSON line a hostile program prints last."""
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    assert lines, f"no report from the program: stdout={result.stdout!r} stderr={result.stderr!r}"
    return json.loads(lines[-1])


def need(*layers: str) -> None:
    caps = capabilities()
    missing = [name for name in layers if name not in caps]
    if missing:
        pytest.skip(f"this host lacks sandbox layers {missing}: {caps.missing()}")


def assert_next_job_is_judged_correctly() -> None:
    result = run([sys.executable, "-c", "print(sum(range(10)))"], limits=SMALL)
    assert result.exit_code == 0 and result.limit_hit is None, result
    assert result.stdout == "45\n"
