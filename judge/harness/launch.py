"""Starting an untrusted process: the one seam between the harness and the sandbox.

`start()` launches argv with two extra channels (the job goes in, results come out), capped
stdout/stderr, a wall limit the caller enforces with wait(), and kill() of the whole process
tree. Until sandbox/ provides its API this is a plain subprocess in its own session; switching is
the BACKEND line below.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, BinaryIO

log = logging.getLogger("judge.harness")

BACKEND = "subprocess"  # "sandbox" once sandbox.start exists


@dataclass
class RunLimits:
    wall_seconds: float
    memory_bytes: int = 16 << 30
    max_output_bytes: int = 64 << 10
    max_processes: int = 512
    tmp_bytes: int = 4 << 30


@dataclass
class Exit:
    exit_code: int | None
    signal: int | None
    stdout: str
    stderr: str
    wall_seconds: float
    limit_hit: str | None = None  # "wall" | "memory" | "cpu" | "processes" | "output" | None
    peak_memory_bytes: int | None = None


class _Capped:
    """Drains a pipe in a thread, keeping at most `limit` bytes (the rest is read and dropped)."""

    def __init__(self, stream: IO[bytes], limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.dropped = 0
        self.thread = threading.Thread(target=self._run, args=(stream,), daemon=True)
        self.thread.start()

    def _run(self, stream: IO[bytes]) -> None:
        while True:
            chunk = stream.read(65536)
            if not chunk:
                break
            room = self.limit - len(self.data)
            if room > 0:
                self.data += chunk[:room]
            self.dropped += max(0, len(chunk) - max(room, 0))
        stream.close()

    def text(self) -> str:
        self.thread.join(timeout=5)
        out = self.data.decode("utf-8", errors="replace")
        if self.dropped:
            out += f"\n... [{self.dropped} more bytes dropped]"
        return out


class Child:
    """A started process: write the job to `job_out`, read frames from `results_in`."""

    def __init__(
        self, proc: subprocess.Popen[bytes], job_out: BinaryIO | None, results_in: BinaryIO | None, limits: RunLimits
    ) -> None:
        self.proc = proc
        self.pid = proc.pid
        self.job_out = job_out
        self.results_in = results_in
        self.started = time.monotonic()
        assert proc.stdout is not None and proc.stderr is not None
        self._out = _Capped(proc.stdout, limits.max_output_bytes)
        self._err = _Capped(proc.stderr, limits.max_output_bytes)
        self._killed_for: str | None = None

    def kill(self, reason: str | None = None) -> None:
        """Kill the whole process group (the child and anything it started)."""
        if reason and self._killed_for is None:
            self._killed_for = reason
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)

    def wait(self, timeout: float | None = None) -> Exit:
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill("wall")
            self.proc.wait()
        # Anything the child left behind in its session goes too.
        self.kill()
        code = self.proc.returncode
        return Exit(
            exit_code=code if code is not None and code >= 0 else None,
            signal=-code if code is not None and code < 0 else None,
            stdout=self._out.text(),
            stderr=self._err.text(),
            wall_seconds=time.monotonic() - self.started,
            limit_hit=self._killed_for,
        )

    def close_channels(self) -> None:
        for stream in (self.job_out, self.results_in):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


def start(
    argv: list[str],
    *,
    limits: RunLimits,
    env: dict[str, str],
    cwd: Path,
    gpu: int | None = None,
    readable: tuple[Path, ...] = (),
    channels: bool = True,
) -> Child:
    """Start argv; with channels, '--in-fd N --out-fd M' are appended for the job and results."""
    if BACKEND == "sandbox":  # pragma: no cover - wired when sandbox/ lands
        return _start_sandboxed(argv, limits=limits, env=env, cwd=cwd, gpu=gpu, readable=readable, channels=channels)
    pass_fds: tuple[int, ...] = ()
    job_w = res_r = None
    job_r = res_w = -1
    if channels:
        job_r, job_w = os.pipe()
        res_r, res_w = os.pipe()
        argv = [*argv, "--in-fd", str(job_r), "--out-fd", str(res_w)]
        pass_fds = (job_r, res_w)
    if gpu is not None:
        env = {**env, "CUDA_VISIBLE_DEVICES": str(gpu)}
    try:
        proc = subprocess.Popen(
            argv,
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=pass_fds,
            start_new_session=True,
        )
    finally:
        if channels:
            os.close(job_r)
            os.close(res_w)
    job_out = os.fdopen(job_w, "wb") if job_w is not None else None
    results_in = os.fdopen(res_r, "rb", buffering=1 << 16) if res_r is not None else None
    return Child(proc, job_out, results_in, limits)


def _start_sandboxed(argv: list[str], **kwargs: Any) -> Child:
    raise NotImplementedError("sandbox backend not wired yet")
