"""Isolation of untrusted code (stdlib only). See sandbox/README.md for the threat model.

    from sandbox import Limits, Result, run, start, WarmPool, capabilities

The names are loaded lazily: the launcher (sandbox.launch), which starts for every job, imports
this package too and must not pay for the parent-side machinery (subprocess, threads, logging).
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # not typing's: importing typing costs the launcher ~25 ms per job

_EXPORTS = {
    "Capabilities": "sandbox.layers",
    "SandboxError": "sandbox.layers",
    "capabilities": "sandbox.layers",
    "write_new_file": "sandbox.files",
    "Job": "sandbox.job",
    "run": "sandbox.job",
    "run_collect": "sandbox.job",
    "start": "sandbox.job",
    "Limits": "sandbox.limits",
    "Result": "sandbox.limits",
    "WarmJob": "sandbox.pool",
    "WarmPool": "sandbox.pool",
}
__all__ = [
    "Capabilities",
    "Job",
    "Limits",
    "Result",
    "SandboxError",
    "WarmJob",
    "WarmPool",
    "capabilities",
    "run",
    "run_collect",
    "start",
    "write_new_file",
]

if TYPE_CHECKING:
    from sandbox.files import write_new_file
    from sandbox.job import Job, run, run_collect, start
    from sandbox.layers import Capabilities, SandboxError, capabilities
    from sandbox.limits import Limits, Result
    from sandbox.pool import WarmJob, WarmPool


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'sandbox' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
