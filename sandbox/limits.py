"""The two value types of the sandbox API: what a job may use, and what came of it."""

from __future__ import annotations

from dataclasses import dataclass

LIMIT_KINDS = ("wall", "cpu", "memory", "processes", "output")


@dataclass(frozen=True)
class Limits:
    """Resource limits for one sandboxed process tree.

    memory_bytes is enforced by the memory cgroup (RLIMIT_AS breaks CUDA, which reserves huge
    virtual ranges); on a host without one, and only for jobs without a GPU, RLIMIT_AS stands in.
    max_processes counts processes and threads (the pids cgroup; RLIMIT_NPROC backs it up).
    max_output_bytes caps stdout and stderr each; the rest is dropped with a note.
    tmp_bytes sizes the private /tmp (and /dev/shm); writes past it fail with ENOSPC.
    """

    wall_seconds: float = 60
    cpu_seconds: float = 60
    memory_bytes: int = 16 << 30
    max_processes: int = 256
    max_open_files: int = 1024
    max_file_bytes: int = 1 << 30
    max_output_bytes: int = 64 << 10
    tmp_bytes: int = 1 << 30

    def __post_init__(self) -> None:
        for name in self.__dataclass_fields__:
            if getattr(self, name) <= 0:
                raise ValueError(f"Limits.{name} must be positive")


@dataclass(frozen=True)
class Result:
    """How a sandboxed process ended. Every field is measured by the trusted side.

    exit_code is None when the process died of a signal (then `signal` says which).
    limit_hit names the limit that ended the job ("wall", "cpu", "memory", "processes",
    "output") or is None; a file-size overrun (SIGXFSZ) reports "output".
    """

    exit_code: int | None
    signal: int | None
    stdout: str
    stderr: str
    stdout_truncated: bool
    stderr_truncated: bool
    wall_seconds: float
    cpu_seconds: float
    peak_memory_bytes: int | None
    limit_hit: str | None

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and self.limit_hit is None
