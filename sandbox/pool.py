"""A pool of sandboxed processes started ahead of their job.

Starting python + torch + CUDA costs about 4 s on the H200, so the pool starts the next sandbox
early: the child imports what it needs and initialises CUDA, then blocks reading fd 3. `take()`
hands one over; its wall clock and CPU budget start then. Each process is single-use: after it
ran a job it is never reused, and its tree is killed when it ends.

Refilling: by default a replacement starts when a taken job *finishes* ("after"), not when it is
taken, so a new process's CUDA start-up never competes with a job that is being timed on the
same GPU. refill="immediate" trades that for a warm process even under back-to-back jobs.

A pool of several processes starts them one at a time: a process is started only while no other
idle one is still starting (has not yet written to its results channel: see warm_idle), so at
most one start-up is ever in flight and an owner that must time something waits for at most one
(wait_settled). A process that finishes its start-up while no taken job is running starts the
next one if the pool is still short, so an idle pool fills up to its size by itself; while a job
runs (a process is taken, or the owner holds the pool: hold/release), only the owner's
refill_soon (at a point where nothing of that job is timed) starts one.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import logging
import os
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Iterable, Mapping

from sandbox.job import Job
from sandbox.layers import SandboxError
from sandbox.limits import Limits, Result

log = logging.getLogger("sandbox")

# How long take() waits for a refill already being spawned (spawning takes ~0.2 s) before starting another.
FILL_WAIT_SECONDS = 5.0


# Results pipes carry whole outputs (1 GiB for the largest softmax shape): with Linux's default
# 64 KiB pipe buffer a 1 GiB frame took 4.8 s on the dev machine, with 1 MiB (the unprivileged
# maximum, /proc/sys/fs/pipe-max-size) 2.0 s (bench/pipe_probe.py).
RESULTS_PIPE_BYTES = 1 << 20
_narrow_pipe_logged = False


def results_pipe() -> tuple[int, int]:
    """os.pipe() with a buffer of RESULTS_PIPE_BYTES where the kernel allows it."""
    global _narrow_pipe_logged
    read_end, write_end = os.pipe()
    try:
        fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, RESULTS_PIPE_BYTES)
    except OSError as exc:  # over the user's pipe quota: correct, only slower for large outputs
        if not _narrow_pipe_logged:
            log.warning("sandbox: results pipe left at the default size (%s); large outputs will be slower", exc)
            _narrow_pipe_logged = True
    return read_end, write_end


class WarmJob:
    """A warm sandboxed process.

    channel_out: the parent's write end of the child's fd 3 (send the job here, then close it).
    channel_in: the parent's read end of the child's fd 4 (results come back here).
    Both are unbuffered binary file objects (`.fileno()` gives the raw fd).
    regions: the parent's end of a Unix stream socket that is the child's fd 5 (the judge
    passes the fds of the memory it shares with the child through it).
    """

    def __init__(self, job: Job, channel_out: io.FileIO, channel_in: io.FileIO, regions: socket.socket) -> None:
        self.job = job
        self.channel_out = channel_out
        self.channel_in = channel_in
        self.regions = regions
        self.was_warm = False  # set by take(): had it finished its start-up when taken?

    @property
    def pid(self) -> int:
        return self.job.pid

    def wait(self, timeout: float | None = None) -> Result:
        return self.job.wait(timeout)

    def kill(self) -> None:
        self.job.kill()

    def close_channels(self) -> None:
        for channel in (self.channel_out, self.channel_in, self.regions):
            with contextlib.suppress(OSError):
                channel.close()


class WarmPool:
    def __init__(
        self,
        argv: list[str],
        *,
        limits: Limits,
        env: Mapping[str, str] | None = None,
        gpu: int | None = None,
        readable: Iterable[str] = (),
        size: int = 1,
        refill: str = "after",
    ) -> None:
        if size < 1:
            raise ValueError("size must be at least 1")
        if refill not in ("after", "immediate"):
            raise ValueError("refill is 'after' or 'immediate'")
        self.argv = list(argv)
        self.limits = limits
        self.env = dict(env or {})
        self.gpu = gpu
        self.readable = tuple(readable)
        self.size = size
        self.refill = refill
        self._idle: deque[WarmJob] = deque()
        self._taken: set[int] = set()
        self._filling = 0  # spawns in progress, so two triggers never start two processes
        self._holds = 0  # the owner is judging: only its refill_soon starts a process
        self._lock = threading.Lock()
        self._closed = False
        first = self._spawn()  # the rest one at a time, each once the one before is warm
        self._idle.append(first)
        self._watch(first)

    def _spawn(self) -> WarmJob:
        job_r, job_w = os.pipe()
        result_r, result_w = results_pipe()
        regions, regions_child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            job = Job(
                self.argv,
                limits=self.limits,
                env=self.env,
                gpu=self.gpu,
                readable=self.readable,
                pass_fds=(job_r, result_w, regions_child.fileno()),
                warm=True,
                on_done=self._job_done,
            )
        except BaseException:
            for fd in (job_w, result_r):
                os.close(fd)
            regions.close()
            raise
        finally:
            os.close(job_r)
            os.close(result_w)
            regions_child.close()
        return WarmJob(job, io.FileIO(job_w, "wb"), io.FileIO(result_r, "rb"), regions)

    def refill_soon(self) -> None:
        """Start the next warm process now, in the background, if the pool is short of one and
        no other process of the pool is still starting (one start-up at a time).

        The owner calls this when a concurrent start cannot disturb what the running job times
        (the judge: once its child is ready, beside the untimed tests, and it waits for the new
        process to be warm before anything is timed), so that a job arriving right behind finds
        a process ready instead of paying a cold start.
        """
        with self._lock:
            if self._closed or len(self._idle) + self._filling >= self.size:
                return
            if self._filling or _starting(self._idle):
                return  # the one starting now tops the pool up once it is warm (_watch)
            self._filling += 1

        def fill() -> None:
            try:
                warm = self._spawn()
            except Exception:
                log.exception("sandbox: could not refill the warm pool")
                with self._lock:
                    self._filling -= 1
                return
            with self._lock:
                self._filling -= 1
                if self._closed:
                    warm.kill()
                    warm.close_channels()
                    return
                self._idle.append(warm)
            self._watch(warm)

        threading.Thread(target=fill, name="sandbox-pool-refill", daemon=True).start()

    def _watch(self, warm: WarmJob) -> None:
        """In a pool of several: once `warm` has started up (or died), start the next process if
        the pool is still short and no job is running (a running job's owner refills instead,
        at a point where a start-up cannot disturb what it times)."""
        if self.size < 2:
            return  # short only while its one process is taken: the owner's refills suffice

        def watch() -> None:
            poller = select.poll()
            poller.register(warm.channel_in.fileno(), select.POLLIN)
            while True:
                with self._lock:
                    if self._closed or warm not in self._idle:
                        return  # closed or taken: the owner refills
                if poller.poll(200):
                    break
            with self._lock:
                idle = not self._taken and not self._holds
            if idle:
                self.refill_soon()

        threading.Thread(target=watch, name="sandbox-pool-watch", daemon=True).start()

    def hold(self) -> None:
        """The owner begins a job: from now until release() no process starts on its own (at a
        process's exit or start-up), only when the owner asks (refill_soon), since the job may
        time something outside the taken process too (the judge: baselines, the profiler)."""
        with self._lock:
            self._holds += 1

    def release(self) -> None:
        """The owner's job is over: an idle pool that is short starts its next process."""
        with self._lock:
            self._holds = max(0, self._holds - 1)
            idle = not self._taken and not self._holds
        if idle:
            self.refill_soon()

    def starting(self) -> int:
        """Processes of the pool still starting up: being spawned, or idle and not yet warm."""
        with self._lock:
            return self._filling + _starting(self._idle)

    def wait_settled(self, timeout: float) -> bool:
        """Wait until no process of the pool is starting up (at most `timeout` s): an owner about
        to time something calls this, since a start-up (imports, a CUDA context) competes with
        timed calls for the CPU, memory bandwidth and the GPU. False if one still is."""
        deadline = time.monotonic() + timeout
        while self.starting():
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)
        return True

    def warm_idle(self) -> int:
        """Idle processes that are warm: ready to start a job at once. A child says so by writing
        to its results channel before it waits for its job (the judge's child writes a "warm"
        frame there), so a readable channel means warmed up; nothing is read here."""
        with self._lock:
            idle = list(self._idle)
        poller = select.poll()
        for warm in idle:
            poller.register(warm.channel_in.fileno(), select.POLLIN)
        return sum(1 for _, events in poller.poll(0) if events & select.POLLIN)

    def _job_done(self, job: Job) -> None:
        with self._lock:
            was_taken = job.pid in self._taken
            self._taken.discard(job.pid)
            # Another job may already be running (its owner took the next process before this
            # one's exit was reaped), or the owner still holds the pool for this job's last steps:
            # a start now would run beside them. The owner refills.
            busy = bool(self._taken) or self._holds > 0
        if was_taken and self.refill == "after" and not busy:
            self.refill_soon()

    def take(self) -> WarmJob:
        """The next warm process, armed (its limits count from now): one that has finished its
        start-up where there is one (`was_warm` says which). Raises SandboxError if no process
        can be started, with the failed child's stderr."""
        warm: WarmJob | None = None
        # A refill being spawned is further along than a process started now: wait for it briefly.
        deadline = time.monotonic() + FILL_WAIT_SECONDS
        while True:
            with self._lock:
                if self._closed:
                    raise SandboxError("the warm pool is closed")
                ready = _ready(self._idle)
                if ready:  # warm ones first (a dead one shows as ready too: it is dropped below)
                    self._idle = deque(w for w in self._idle if w in ready) + deque(
                        w for w in self._idle if w not in ready
                    )
                while self._idle:
                    candidate = self._idle.popleft()
                    result = candidate.job.poll()
                    if result is None:
                        warm = candidate
                        break
                    log.warning("sandbox: a warm process died before its job: %s", result.stderr[-500:])
                    candidate.close_channels()
                filling = self._filling
            if warm is not None or not filling or time.monotonic() > deadline:
                break
            time.sleep(0.01)
        if warm is None:
            warm = self._spawn_checked()
        warm.was_warm = warm in _ready([warm])
        with self._lock:
            self._taken.add(warm.pid)
        warm.job.arm()
        if self.refill == "immediate":
            self.refill_soon()
        return warm

    def _spawn_checked(self) -> WarmJob:
        warm = self._spawn()
        result = warm.job.poll()
        if result is not None:
            warm.close_channels()
            raise SandboxError(f"a fresh warm process died at once: {result.stderr[-2000:]}")
        return warm

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = list(self._idle), deque()
        for warm in idle:
            warm.kill()
            warm.close_channels()
        for warm in idle:
            with contextlib.suppress(TimeoutError):
                warm.wait(10)

    def __enter__(self) -> WarmPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _ready(processes: Iterable[WarmJob]) -> set[WarmJob]:
    """Those whose results channel has something to read or hung up: warm, or dead (the pool's
    processes write to it before they wait for their job); nothing is read here."""
    by_fd = {w.channel_in.fileno(): w for w in processes}
    if not by_fd:
        return set()
    poller = select.poll()
    for fd in by_fd:
        poller.register(fd, select.POLLIN)
    return {by_fd[fd] for fd, _events in poller.poll(0)}


def _starting(idle: Iterable[WarmJob]) -> int:
    """Idle processes still starting up (neither warm nor dead)."""
    idle = list(idle)
    return len(idle) - len(_ready(idle))
