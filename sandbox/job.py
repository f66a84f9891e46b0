"""Starting, watching and ending one sandboxed process tree (the parent's side).

A monitor thread per job drains stdout/stderr (keeping the first max_output_bytes of each), reads
the launcher's status pipe, enforces the wall-clock and CPU limits, and when the job ends kills
whatever is left of its tree (cgroup.kill, then checks the group is empty) and removes its cgroup.
Everything in a Result is measured here or by the trusted launcher, never taken from the job.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from sandbox import cgroups, gpu_check
from sandbox.layers import SandboxError, capabilities, wanted_layers
from sandbox.limits import Limits, Result
from sandbox.plan import REPO, SANDBOX_GID, SANDBOX_UID, environment, mount_plan, rlimits

log = logging.getLogger("sandbox")

# Past this many bytes on one stream (1024 x the cap, 64 MiB by default) the job is killed:
# draining gigabytes would cost the worker time for nothing.
OUTPUT_FLOOD_FACTOR = 1024
START_TIMEOUT = 60.0
_BOOTSTRAP = "import sys; sys.path.append(sys.argv[1]); from sandbox.launch import main; main(sys.argv[2:])"

StdinArg = bytes | int | None


class _Stream:
    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.kept = bytearray()
        self.total = 0

    def feed(self, data: bytes) -> None:
        room = self.cap - len(self.kept)
        if room > 0:
            self.kept += data[:room]
        self.total += len(data)

    @property
    def truncated(self) -> bool:
        return self.total > self.cap

    def text(self) -> str:
        text = self.kept.decode("utf-8", errors="replace")
        if self.truncated:
            text += f"\n[sandbox: output truncated at {self.cap} bytes; {self.total - self.cap} more bytes dropped]\n"
        return text


class Job:
    """One sandboxed process tree. Use `start()` or `run()` rather than this constructor."""

    def __init__(
        self,
        argv: list[str],
        *,
        limits: Limits,
        env: Mapping[str, str] | None = None,
        gpu: int | None = None,
        readable: Iterable[str] = (),
        pass_fds: Iterable[int] = (),
        stdin: StdinArg = None,
        cwd: str | None = None,
        files: Mapping[str, bytes] | None = None,
        collect: Iterable[str] = (),
        collect_max_bytes: int = 256 << 20,
        warm: bool = False,
        on_done: Callable[[Job], None] | None = None,
    ) -> None:
        if not argv:
            raise ValueError("argv is empty")
        self.argv = list(argv)
        self.limits = limits
        self.gpu = gpu
        self._warm = warm
        self._on_done = on_done
        self._lock = threading.Lock()
        self._started = threading.Event()
        self._done = threading.Event()
        self._start_error: str | None = None
        self._exec_ok = False
        self._reaped = False
        self._exit: dict[str, Any] | None = None
        self._killed_for: str | None = None
        self._armed_at: float | None = None if warm else time.monotonic()
        self._cpu_base = 0.0
        self._result: Result | None = None
        self._target_pid: int | None = None
        self.layers: dict[str, bool] = {}
        self.leftover_gpu_pids: list[int] = []
        self.collected: dict[str, bytes] = {}
        self.collect_errors: dict[str, str] = {}
        self._collect = list(collect)
        self._collect_max = collect_max_bytes
        self._collect_buffer = bytearray()
        self._collect_r: int | None = None
        file_items = list((files or {}).items())

        caps = capabilities()
        lay = cgroups.layout()
        self._cgroup = (
            cgroups.JobCgroup(lay, memory_bytes=limits.memory_bytes, max_processes=limits.max_processes)
            if lay.any
            else None
        )
        try:
            config = {
                "argv": self.argv,
                "env": _job_environment(env, gpu),
                "cwd": cwd,
                "uid": SANDBOX_UID,
                "gid": SANDBOX_GID,
                "layers": sorted(wanted_layers(caps)),
                "cgroup_procs": self._cgroup.procs_files if self._cgroup else [],
                "rlimits": rlimits(
                    limits,
                    memory_cgroup=lay.memory,
                    pids_cgroup=lay.pids,
                    gpu=gpu,
                    warm=warm,
                    cpu_cgroup=self._cgroup is not None and lay.v2_base is not None,
                ),
                "mount": mount_plan(gpu=gpu, readable=readable, limits=limits),
                "pass_fds": list(pass_fds),
                "files": [[name, len(data)] for name, data in file_items],
                "collect": self._collect,
                "collect_max_bytes": collect_max_bytes,
            }
            self._spawn(config, stdin, b"".join(data for _, data in file_items))
        except BaseException:
            if self._cgroup:
                self._cgroup.destroy()
            raise
        if not self._started.wait(START_TIMEOUT) or not self._exec_ok:
            self.kill()
            self._done.wait(10)
            detail = self._start_error or "the launcher ended before the job started"
            if self._result is not None and self._result.stderr.strip():
                detail += f" ({self._result.stderr.strip()[-2000:]})"
            raise SandboxError(detail)

    # --- spawning -------------------------------------------------------------------------

    def _spawn(self, config: dict[str, Any], stdin: StdinArg, blobs: bytes) -> None:
        config_r, config_w = os.pipe()
        status_r, status_w = os.pipe()
        # Held open by this process only; its closing (the worker died) tells the launcher to end
        # the job, since no one would enforce its wall limit any more.
        lifeline_r, self._lifeline_w = os.pipe()
        config["lifeline_fd"] = lifeline_r
        launcher_fds = [config_r, status_w, lifeline_r]
        if self._collect:
            self._collect_r, collect_w = os.pipe()
            config["collect_fd"] = collect_w
            launcher_fds.append(collect_w)
        payload = json.dumps(config).encode() + b"\n" + blobs
        # Written from a thread: the plan and the input files may be larger than a pipe holds.
        threading.Thread(target=_write_and_close, args=(config_w, payload), daemon=True).start()
        stdin_arg: int = (
            subprocess.DEVNULL if stdin is None else (subprocess.PIPE if isinstance(stdin, bytes) else stdin)
        )
        try:
            self._t0 = time.monotonic()
            self._proc = subprocess.Popen(
                [sys.executable, "-I", "-c", _BOOTSTRAP, str(REPO), str(config_r), str(status_w)],
                stdin=stdin_arg,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(*launcher_fds, *config["pass_fds"]),
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
                start_new_session=True,
            )
        except BaseException:
            if self._collect_r is not None:
                os.close(self._collect_r)
            os.close(status_r)
            os.close(self._lifeline_w)
            raise
        finally:
            for fd in launcher_fds:
                os.close(fd)
        self.pid = self._proc.pid
        if isinstance(stdin, bytes):
            threading.Thread(target=self._feed_stdin, args=(stdin,), daemon=True).start()
        self._status_r = status_r
        self._monitor = threading.Thread(target=self._watch, name=f"sandbox-{self.pid}", daemon=True)
        self._monitor.start()

    def _feed_stdin(self, data: bytes) -> None:
        assert self._proc.stdin is not None
        with contextlib.suppress(OSError):
            self._proc.stdin.write(data)
        with contextlib.suppress(OSError):
            self._proc.stdin.close()

    # --- the monitor thread ---------------------------------------------------------------

    def _on_status(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            return
        if "layers" in message:
            self.layers = message["layers"]
        if "target_pid" in message:
            self._target_pid = message["target_pid"]
        if "started" in message:
            self._exec_ok = True
            if not self._warm:
                self._armed_at = time.monotonic()  # a cold job's clocks start at its exec
            self._started.set()
        if "error" in message:
            self._start_error = message["error"]
            self._started.set()
        if "exit" in message:
            self._exit = message["exit"]
            self._exit_at = time.monotonic()

    def _watch(self) -> None:
        try:
            self._watch_loop()
        except Exception:
            log.exception("sandbox: monitor of job %s failed", self.pid)
            self.kill()
        finally:
            self._finish()

    def _watch_loop(self) -> None:
        cap = self.limits.max_output_bytes
        self._out, self._err = _Stream(cap), _Stream(cap)
        streams = {self._proc.stdout.fileno(): self._out, self._proc.stderr.fileno(): self._err}  # type: ignore[union-attr]
        status_buffer = b""
        sel = selectors.DefaultSelector()
        extra = [self._collect_r] if self._collect_r is not None else []
        for fd in [*streams, self._status_r, *extra]:
            os.set_blocking(fd, False)
            sel.register(fd, selectors.EVENT_READ)
        exited_at: float | None = None
        while sel.get_map():
            for key, _ in sel.select(timeout=0.05):
                fd = key.fd
                try:
                    data = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                if not data:
                    sel.unregister(fd)
                    continue
                if fd == self._collect_r:
                    if len(self._collect_buffer) <= self._collect_max + (1 << 20):
                        self._collect_buffer += data
                    continue
                if fd == self._status_r:
                    status_buffer += data
                    while b"\n" in status_buffer:
                        line, status_buffer = status_buffer.split(b"\n", 1)
                        self._on_status(line)
                    continue
                stream = streams[fd]
                stream.feed(data)
                if stream.total > cap * OUTPUT_FLOOD_FACTOR:
                    self.kill("output")
            self._check_limits()
            if exited_at is None and self._launcher_exited():
                exited_at = time.monotonic()
                self._started.set()
            if exited_at is not None and time.monotonic() - exited_at > 0.5:
                # The launcher is gone but something still holds a pipe (only possible without
                # a PID namespace): end the tree, then stop listening shortly after.
                self.kill()
                if time.monotonic() - exited_at > 3:
                    break
        sel.close()

    def _launcher_exited(self) -> bool:
        # WNOWAIT: look without reaping; _finish reaps with wait4 to get the rusage.
        info = os.waitid(os.P_PID, self._proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        return info is not None

    def _check_limits(self) -> None:
        if self._killed_for or self._exit is not None:
            return
        now = time.monotonic()
        if self._armed_at is not None and now - self._armed_at > self.limits.wall_seconds:
            self.kill("wall")
            return
        if self._cgroup is not None and self._armed_at is not None:
            used = self._cgroup.cpu_seconds()
            if used is not None and used - self._cpu_base > self.limits.cpu_seconds + 0.5:
                self.kill("cpu")

    def _finish(self) -> None:
        _, status, usage = os.wait4(self._proc.pid, 0)
        with self._lock:
            self._reaped = True  # from now on the pid may belong to someone else: never signal it
        self._proc.returncode = os.waitstatus_to_exitcode(status)
        end = getattr(self, "_exit_at", None) or time.monotonic()
        for stream in (self._proc.stdout, self._proc.stderr):
            with contextlib.suppress(OSError):
                stream.close()  # type: ignore[union-attr]
        with contextlib.suppress(OSError):
            os.close(self._status_r)
        with contextlib.suppress(OSError):
            os.close(self._lifeline_w)
        if self._collect_r is not None:
            with contextlib.suppress(OSError):
                os.close(self._collect_r)
            self._parse_collected()
        cpu = usage.ru_utime + usage.ru_stime
        peak = usage.ru_maxrss * 1024 or None
        oom = pids_out = False
        if self._cgroup is not None:
            cg_cpu = self._cgroup.cpu_seconds()
            if cg_cpu is not None:
                cpu = cg_cpu
            peak = self._cgroup.peak_memory() or peak
            oom = self._cgroup.oom_killed()
            pids_out = self._cgroup.pids_exhausted()
            gpu_pids = self._cgroup.pids() if self.gpu is not None else set()
            self._cgroup.destroy()
            if self.gpu is not None:
                self.leftover_gpu_pids = gpu_check.lingering(self.gpu, gpu_pids)
        cpu = max(0.0, cpu - self._cpu_base)
        self._result = self._build_result(end, cpu, peak, oom, pids_out)
        self._done.set()
        if self._on_done is not None:
            try:
                self._on_done(self)
            except Exception:
                log.exception("sandbox: on_done callback failed")

    def _parse_collected(self) -> None:
        buffer = bytes(self._collect_buffer)
        while buffer:
            line, sep, rest = buffer.partition(b"\n")
            if not sep:
                break
            try:
                header = json.loads(line)
            except ValueError:
                break
            name = str(header.get("name"))
            if "size" in header:
                size = int(header["size"])
                if len(rest) < size:
                    self.collect_errors[name] = "truncated"
                    break
                self.collected[name], buffer = rest[:size], rest[size:]
            else:
                self.collect_errors[name] = str(header.get("missing", "missing"))
                buffer = rest
        for name in self._collect:
            if name not in self.collected and name not in self.collect_errors:
                self.collect_errors[name] = "not produced (the job did not finish normally)"

    def _build_result(self, end: float, cpu: float, peak: int | None, oom: bool, pids_out: bool) -> Result:
        code = signum = None
        if self._exit is not None:
            code, signum = self._exit["code"], self._exit["signal"]
        else:
            signum = signal.SIGKILL
        failed = code != 0
        limit: str | None = None
        if failed and oom:
            limit = "memory"
        elif failed and pids_out:
            limit = "processes"
        elif self._killed_for:
            limit = self._killed_for
        elif signum == signal.SIGXCPU or (signum == signal.SIGKILL and cpu >= self.limits.cpu_seconds):
            limit = "cpu"
        elif signum == signal.SIGXFSZ:
            limit = "output"
        start = self._armed_at if self._armed_at is not None else self._t0
        stderr = self._err.text()
        note = _limit_note(limit, self.limits, signum)
        if note:
            stderr += f"\n[sandbox: {note}]\n"
        return Result(
            exit_code=code,
            signal=signum,
            stdout=self._out.text(),
            stderr=stderr,
            stdout_truncated=self._out.truncated,
            stderr_truncated=self._err.truncated,
            wall_seconds=round(max(0.0, end - start), 6),
            cpu_seconds=round(cpu, 6),
            peak_memory_bytes=peak,
            limit_hit=limit,
        )

    # --- public ---------------------------------------------------------------------------

    def arm(self) -> None:
        """Start the job's clocks now (a warm process is armed when it is handed its job)."""
        if self._cgroup is not None:
            self._cpu_base = self._cgroup.cpu_seconds() or 0.0
        self._armed_at = time.monotonic()

    def poll(self) -> Result | None:
        return self._result if self._done.is_set() else None

    def wait(self, timeout: float | None = None) -> Result:
        """Block until the job has ended and its tree is gone. Raises TimeoutError if `timeout`
        passes first (the job keeps running; its own limits still apply)."""
        if not self._done.wait(timeout):
            raise TimeoutError(f"sandboxed job {self.pid} still running after {timeout} s")
        assert self._result is not None
        return self._result

    def target_host_pid(self) -> int | None:
        """The host's pid of the job's target process (the child of the job's init), found
        through the job's cgroup; None without a cgroup or once it is gone. The judge reads the
        target's CPU accounting from /proc with it (judge/harness/parent/clock.py)."""
        if self._target_pid is not None:
            return self._target_pid  # no PID namespace: init said which it is
        if self._cgroup is None:
            return None
        parents = {}
        for pid in self._cgroup.pids():
            with contextlib.suppress(OSError, ValueError, IndexError), open(f"/proc/{pid}/stat", "rb") as fh:
                parents[pid] = int(fh.read().rsplit(b")", 1)[1].split()[1])
        inits = [pid for pid, parent in parents.items() if parent == self.pid]
        if len(inits) != 1:
            return None
        targets = [pid for pid, parent in parents.items() if parent == inits[0]]
        return targets[0] if len(targets) == 1 else None

    def kill(self, reason: str | None = None) -> None:
        """Kill the whole tree now. `reason` (a limit kind) is reported as limit_hit."""
        with self._lock:
            if reason and not self._killed_for and self._exit is None:
                self._killed_for = reason
            if self._reaped:
                return
            if self._cgroup is not None:
                self._cgroup.kill()
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._proc.pid, signal.SIGKILL)  # the launcher's session (start_new_session)
            if self._target_pid:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self._target_pid, signal.SIGKILL)


def _job_environment(extra: Mapping[str, str] | None, gpu: int | None) -> dict[str, str]:
    env = environment(extra)
    if gpu is not None:
        # The job sees one GPU; pin CUDA to it by UUID (a host index such as "3" would name a
        # device that does not exist inside).
        pinned = gpu_check.uuid(gpu)
        if pinned:
            env["CUDA_VISIBLE_DEVICES"] = pinned
        else:
            env.pop("CUDA_VISIBLE_DEVICES", None)
    return env


def _write_and_close(fd: int, data: bytes) -> None:
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    except OSError:
        pass
    finally:
        os.close(fd)


def _limit_note(limit: str | None, limits: Limits, signum: int | None) -> str | None:
    if limit == "wall":
        return f"killed: wall-clock limit of {limits.wall_seconds:g} s exceeded"
    if limit == "cpu":
        return f"killed: CPU time limit of {limits.cpu_seconds:g} s exceeded"
    if limit == "memory":
        return f"killed: memory limit of {limits.memory_bytes / (1 << 20):.0f} MiB exceeded"
    if limit == "processes":
        return f"process limit of {limits.max_processes} reached"
    if limit == "output" and signum == signal.SIGXFSZ:
        return f"killed: file size limit of {limits.max_file_bytes} bytes exceeded"
    if limit == "output":
        return f"killed: more than {limits.max_output_bytes * OUTPUT_FLOOD_FACTOR} bytes of output"
    return None


def start(
    argv: list[str],
    *,
    limits: Limits,
    env: Mapping[str, str] | None = None,
    gpu: int | None = None,
    readable: Iterable[str] = (),
    pass_fds: Iterable[int] = (),
    stdin: StdinArg = None,
    cwd: str | None = None,
) -> Job:
    """Start `argv` in a fresh sandbox and return at once (after the exec succeeded).

    pass_fds[i] appears in the child as fd 3 + i; the caller keeps (and should close) its copies.
    stdin: None (/dev/null), bytes (fed through a pipe) or a file descriptor.
    cwd is a path inside the sandbox (default /tmp). Raises SandboxError if the sandbox could not
    be built or argv could not be executed.
    """
    return Job(argv, limits=limits, env=env, gpu=gpu, readable=readable, pass_fds=pass_fds, stdin=stdin, cwd=cwd)


def run(
    argv: list[str],
    *,
    limits: Limits,
    env: Mapping[str, str] | None = None,
    gpu: int | None = None,
    readable: Iterable[str] = (),
    pass_fds: Iterable[int] = (),
    stdin: StdinArg = None,
    cwd: str | None = None,
) -> Result:
    """Run `argv` in a fresh sandbox to completion (see `start`)."""
    return start(
        argv, limits=limits, env=env, gpu=gpu, readable=readable, pass_fds=pass_fds, stdin=stdin, cwd=cwd
    ).wait()


def run_collect(
    argv: list[str],
    *,
    limits: Limits,
    files: Mapping[str, bytes] | None = None,
    collect: Iterable[str] = (),
    collect_max_bytes: int = 256 << 20,
    env: Mapping[str, str] | None = None,
    gpu: int | None = None,
    readable: Iterable[str] = (),
    cwd: str | None = None,
) -> tuple[Result, dict[str, bytes], dict[str, str]]:
    """Run a build step (nvcc, a Triton/NVRTC compile) with input files in, output files out.

    `files` are written by the trusted launcher into the job's private /tmp before anything of
    the job runs; after the job ended the launcher sends back the `collect` names from there
    over a pipe (regular files the job created; no symlinks, FIFOs or links to other files).
    Returns (result, {name: bytes}, {name: why missing}). Store the bytes where no job can write
    (sandbox.write_new_file into a directory later jobs get only as `readable`).
    """
    job = Job(
        argv,
        limits=limits,
        env=env,
        gpu=gpu,
        readable=readable,
        cwd=cwd,
        files=files,
        collect=collect,
        collect_max_bytes=collect_max_bytes,
    )
    result = job.wait()
    return result, job.collected, job.collect_errors
