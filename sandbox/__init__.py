"""Isolation of untrusted code (stdlib only). See sandbox/README.md for the threat model.

from sandbox import Limits, Result, run, start, WarmPool, capabilities
"""

from sandbox.capabilities import Capabilities, SandboxError, capabilities
from sandbox.files import write_new_file
from sandbox.job import Job, run, run_collect, start
from sandbox.limits import Limits, Result
from sandbox.pool import WarmJob, WarmPool

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
