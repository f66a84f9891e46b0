"""Starting untrusted processes: the one seam between the harness and the sandbox.

Two calls:
- `start_child(argv, ...)`: a process with two channels, the job going in on its fd 3 and
  results coming out on its fd 4, and a Unix socket on its fd 5 for the fds of the memory the
  parent shares with it (a warm one from the pool when the config has one);
- `run_files(argv, ...)`: a build or tool step (nvcc, ncu) with input files written into its
  private directory before it starts and named output files sent back afterwards.

The backend is sandbox/ (namespaces, uid drop, seccomp, cgroups: see sandbox/README.md). It fails
closed: where the sandbox cannot start, or a layer the SandboxSetting requires is missing, nothing
is started and SandboxUnavailable names what is missing. Only the development switch
(GRIDSTRIDE_JUDGE_SANDBOX=off, read once at the edge into JudgeConfig.sandbox) runs submissions as
plain subprocesses in their own session, and every report then says so.
Inside either, argv may use "{dir}" for the process's private directory (/tmp in the sandbox).
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import IO, Any, BinaryIO

from sandbox.pool import results_pipe

log = logging.getLogger("judge.harness")


SWITCH = "GRIDSTRIDE_JUDGE_SANDBOX"
UNSANDBOXED = "unsandboxed (development switch)"


class SandboxUnavailable(RuntimeError):
    """This host cannot sandbox submissions as required: the judge refuses to judge."""


@dataclass(frozen=True)
class SandboxSetting:
    """How submissions are isolated. `enabled` is False only by the development switch;
    `required` names the layers that must hold (sandbox.layers), every layer by default."""

    enabled: bool = True
    required: tuple[str, ...] | None = None  # None: every layer

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> SandboxSetting:
        env = os.environ if environ is None else environ
        switch = env.get(SWITCH, "on").strip().lower()
        if switch not in ("on", "off", "1", "0", ""):
            raise ValueError(f"{SWITCH} must be on or off (off: development only, no isolation), not {switch!r}")
        names = env.get("GRIDSTRIDE_SANDBOX_REQUIRE", "all").strip()
        required = None if names in ("all", "") else tuple(n.strip() for n in names.split(",") if n.strip())
        return cls(enabled=switch not in ("off", "0"), required=required)

    def describe(self) -> str:
        """What a report's system info says about isolation."""
        return "sandbox" if self.enabled else UNSANDBOXED


def missing_layers(setting: SandboxSetting) -> str | None:
    """Why this host cannot sandbox as `setting` requires (naming each missing layer), or None."""
    try:
        import sandbox
        from sandbox.layers import ALL_LAYERS

        caps = sandbox.capabilities()
    except Exception as exc:
        return f"the sandbox does not start on this host ({exc})"
    required = ALL_LAYERS if setting.required is None else setting.required
    unknown = sorted(set(required) - set(ALL_LAYERS))
    if unknown:
        return f"GRIDSTRIDE_SANDBOX_REQUIRE names unknown layers: {', '.join(unknown)} (known: {', '.join(ALL_LAYERS)})"
    missing = {name: why for name, why in caps.missing().items() if name in required}
    if not missing:
        return None
    listed = "; ".join(f"{name} ({why})" for name, why in missing.items())
    return f"the sandbox is missing required layers: {listed}"


_setting: SandboxSetting | None = None
_backend: str | None = None
_refusal: str | None = None
_backend_lock = threading.Lock()


def refusal(setting: SandboxSetting) -> str | None:
    """Why nothing can be judged here under `setting` (now the one in use), or None."""
    configure(setting)
    try:
        backend()
    except SandboxUnavailable as exc:
        return str(exc)
    return None


def configure(setting: SandboxSetting) -> None:
    """Use `setting` from now on (the judge's config carries it; decided again if it changed)."""
    global _setting, _backend, _refusal
    with _backend_lock:
        if setting != _setting:
            _setting, _backend, _refusal = setting, None, None


def backend() -> str:
    """ "sandbox" or "subprocess" (the development switch), decided once per setting; raises
    SandboxUnavailable where the sandbox is required and cannot run."""
    global _backend, _refusal
    with _backend_lock:
        if _backend is None and _refusal is None:
            setting = _setting or SandboxSetting.from_env()
            if not setting.enabled:
                log.warning("%s=off: submissions run as plain subprocesses, WITHOUT isolation", SWITCH)
                _backend = "subprocess"
            else:
                _refusal = missing_layers(setting)
                _backend = None if _refusal else "sandbox"
        if _refusal is not None:
            raise SandboxUnavailable(
                f"this judge refuses to run submissions: {_refusal}. Fix the host (sandbox/README.md) or, "
                f"for development only, set {SWITCH}=off"
            )
        assert _backend is not None
        return _backend


@dataclass
class RunLimits:
    wall_seconds: float
    cpu_seconds: float | None = None
    memory_bytes: int = 16 << 30
    max_output_bytes: int = 64 << 10
    max_processes: int = 512
    tmp_bytes: int = 4 << 30

    def for_sandbox(self) -> Any:
        import sandbox

        cpu = self.cpu_seconds or self.wall_seconds * max(2, os.cpu_count() or 2)
        return sandbox.Limits(
            wall_seconds=self.wall_seconds,
            cpu_seconds=cpu,
            memory_bytes=self.memory_bytes,
            max_processes=self.max_processes,
            max_output_bytes=self.max_output_bytes,
            tmp_bytes=self.tmp_bytes,
        )


@dataclass
class Exit:
    exit_code: int | None
    signal: int | None
    stdout: str
    stderr: str
    wall_seconds: float
    limit_hit: str | None = None  # "wall" | "memory" | "cpu" | "processes" | "output" | None
    peak_memory_bytes: int | None = None
    # run_files: why an output named in `collect` did not come back ({name: reason}).
    not_collected: dict[str, str] = field(default_factory=dict)


def _exit_from_result(result: Any) -> Exit:
    return Exit(
        exit_code=result.exit_code,
        signal=result.signal,
        stdout=result.stdout,
        stderr=result.stderr,
        wall_seconds=result.wall_seconds,
        limit_hit=result.limit_hit,
        peak_memory_bytes=result.peak_memory_bytes,
    )


class Child:
    """A started process: write the job to `job_out`, read frames from `results_in`, pass the
    fds of memory shared with it on `regions` (its fd 5; judge/harness/common/shared_memory.py)."""

    job_out: BinaryIO | None
    results_in: BinaryIO | None
    regions: socket.socket | None = None
    was_warm: bool | None = None  # from a warm pool: had it finished its start-up when taken?

    def accounting_pid(self) -> int | None:
        """The host pid of the process that runs the job (its CPU time is read from /proc)."""
        return None

    def kill(self, reason: str | None = None) -> None:
        raise NotImplementedError

    def wait(self, timeout: float | None = None, timeout_reason: str | None = None) -> Exit:
        """Wait for the end; past `timeout` kill it (reported as `timeout_reason`)."""
        raise NotImplementedError

    def close_channels(self) -> None:
        for stream in (self.job_out, self.results_in, self.regions):
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):
                    stream.close()


# ---------------------------------------------------------------------------------------------
# The sandbox backend.


class _SandboxChild(Child):
    def __init__(self, job: Any, job_out: BinaryIO, results_in: BinaryIO, regions: socket.socket) -> None:
        self.job = job  # sandbox.Job
        self.pid = job.pid
        self.job_out = job_out
        self.results_in = results_in
        self.regions = regions

    def accounting_pid(self) -> int | None:
        return self.job.target_host_pid()

    def kill(self, reason: str | None = None) -> None:
        self.job.kill(reason)

    def wait(self, timeout: float | None = None, timeout_reason: str | None = None) -> Exit:
        try:
            result = self.job.wait(timeout)
        except TimeoutError:
            self.job.kill(timeout_reason)
            result = self.job.wait()
        return _exit_from_result(result)


def _sandbox_start(
    argv: list[str], limits: RunLimits, env: dict[str, str], gpu: int | None, pool: Any, readable: list[str]
) -> Child:
    import sandbox

    if pool is not None:
        warm = pool.take()
        # Buffered wrappers: a raw FileIO write may be partial, a buffered one loops until done.
        child = _SandboxChild(
            warm.job,
            io.BufferedWriter(warm.channel_out, 1 << 16),  # type: ignore[arg-type]
            io.BufferedReader(warm.channel_in, 1 << 16),  # type: ignore[arg-type]
            warm.regions,
        )
        child.was_warm = warm.was_warm
        return child
    job_r, job_w = os.pipe()
    res_r, res_w = results_pipe()
    regions, regions_child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        job = sandbox.start(
            argv,
            limits=limits.for_sandbox(),
            env=env,
            gpu=gpu,
            readable=readable,
            pass_fds=(job_r, res_w, regions_child.fileno()),
        )
    except BaseException:
        os.close(job_w)
        os.close(res_r)
        regions.close()
        raise
    finally:
        os.close(job_r)
        os.close(res_w)
        regions_child.close()
    return _SandboxChild(job, os.fdopen(job_w, "wb"), os.fdopen(res_r, "rb", buffering=0), regions)


def make_pool(
    argv: list[str],
    limits: RunLimits,
    env: dict[str, str],
    gpu: int | None,
    readable: list[str] | None = None,
    size: int = 1,
) -> Any:
    """A sandbox.WarmPool of `size` children started ahead, one at a time (None with the
    subprocess backend). The size comes from parent/pool_size.py."""
    if backend() != "sandbox":
        return None
    import sandbox

    return sandbox.WarmPool(argv, limits=limits.for_sandbox(), env=env, gpu=gpu, readable=readable or (), size=size)


# ---------------------------------------------------------------------------------------------
# The subprocess backend (no isolation beyond a session and a scrubbed environment).


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


class _ProcessChild(Child):
    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        job_out: BinaryIO | None,
        results_in: BinaryIO | None,
        limits: RunLimits,
        private_dir: str | None = None,
        regions: socket.socket | None = None,
    ) -> None:
        self.proc = proc
        self.pid = proc.pid
        self.job_out = job_out
        self.results_in = results_in
        self.regions = regions
        self.started = time.monotonic()
        self.private_dir = private_dir
        assert proc.stdout is not None and proc.stderr is not None
        self._out = _Capped(proc.stdout, limits.max_output_bytes)
        self._err = _Capped(proc.stderr, limits.max_output_bytes)
        self._killed_for: str | None = None

    def accounting_pid(self) -> int | None:
        return self.proc.pid

    def kill(self, reason: str | None = None) -> None:
        """Kill the whole process group (the child and anything it started)."""
        if reason and self._killed_for is None and self.proc.poll() is None:
            self._killed_for = reason
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)

    def wait(self, timeout: float | None = None, timeout_reason: str | None = None) -> Exit:
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill(timeout_reason)
            self.proc.wait()
        self.kill()  # anything the child left behind in its session goes too
        code = self.proc.returncode
        return Exit(
            exit_code=code if code is not None and code >= 0 else None,
            signal=-code if code is not None and code < 0 else None,
            stdout=self._out.text(),
            stderr=self._err.text(),
            wall_seconds=time.monotonic() - self.started,
            limit_hit=self._killed_for,
        )


def subprocess_env(env: dict[str, str], private_dir: str, gpu: int | None) -> dict[str, str]:
    from judge.spec import REPO_ROOT

    full = {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "PYTHONPATH": str(REPO_ROOT),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONSAFEPATH": "1",
        "LANG": "C.UTF-8",
        "HOME": private_dir,
        "TMPDIR": private_dir,
        "TRITON_CACHE_DIR": os.path.join(private_dir, ".triton"),
    }
    for name in ("LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "TRITON_PTXAS_PATH"):
        if name in os.environ:
            full[name] = os.environ[name]
    full.update(env)
    if gpu is not None:
        full["CUDA_VISIBLE_DEVICES"] = str(gpu)
    return full


def _private_dir(base: str | None) -> str:
    if base:
        os.makedirs(base, exist_ok=True)
    return tempfile.mkdtemp(prefix="proc-", dir=base)


def _subprocess_start(
    argv: list[str], limits: RunLimits, env: dict[str, str], gpu: int | None, work_dir: str | None
) -> Child:
    private = _private_dir(work_dir)
    job_r, job_w = os.pipe()
    res_r, res_w = results_pipe()
    regions, regions_child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    argv = [*argv, "--in-fd", str(job_r), "--out-fd", str(res_w), "--region-fd", str(regions_child.fileno())]
    try:
        proc = subprocess.Popen(
            [a.replace("{dir}", private) for a in argv],
            env=subprocess_env(env, private, gpu),
            cwd=private,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(job_r, res_w, regions_child.fileno()),
            start_new_session=True,
        )
    except BaseException:
        os.close(job_w)
        os.close(res_r)
        regions.close()
        raise
    finally:
        os.close(job_r)
        os.close(res_w)
        regions_child.close()
    child = _ProcessChild(proc, os.fdopen(job_w, "wb"), os.fdopen(res_r, "rb", buffering=0), limits, private, regions)
    # The private directory goes when the process does (removal never follows links).
    threading.Thread(target=_remove_after, args=(proc, private), daemon=True).start()
    return child


def _remove_after(proc: subprocess.Popen[bytes], path: str) -> None:
    proc.wait()
    shutil.rmtree(path, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# The two calls.


def start_child(
    argv: list[str],
    *,
    limits: RunLimits,
    env: dict[str, str],
    gpu: int | None,
    pool: Any = None,
    work_dir: str | None = None,
    readable: list[str] | None = None,
) -> Child:
    """Start argv with the job channel on its fd 3 and the results channel on its fd 4.
    readable: paths the sandboxed child may read (read-only) besides the sandbox's own."""
    if backend() == "sandbox":
        return _sandbox_start(argv, limits, env, gpu, pool, readable or [])
    return _subprocess_start(argv, limits, env, gpu, work_dir)


def _read_regular_file(directory: str, name: str, max_bytes: int) -> bytes:
    """Read a file the process made, refusing links and anything but a plain file."""
    dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
    finally:
        os.close(dir_fd)
    try:
        info = os.fstat(fd)
        import stat

        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
            raise OSError(f"{name} is not a plain file")
        if info.st_size > max_bytes:
            # The same words as the sandbox's collector: compile.py tells the user the limit.
            raise OSError(f"larger than the {max_bytes}-byte collect limit")
        with os.fdopen(fd, "rb") as fh:
            fd = -1
            return fh.read(max_bytes + 1)[:max_bytes]
    finally:
        if fd >= 0:
            os.close(fd)


def run_files(
    argv: list[str],
    *,
    limits: RunLimits,
    env: dict[str, str],
    gpu: int | None,
    files: dict[str, bytes],
    collect: tuple[str, ...] = (),
    collect_max_bytes: int = 64 << 20,
    work_dir: str | None = None,
) -> tuple[Exit, dict[str, bytes]]:
    """Run argv to completion in a private directory holding `files`; return the `collect`ed
    outputs (plain files only). "{dir}" in argv names that directory; it is also the cwd."""
    if backend() == "sandbox":
        import sandbox

        result, collected, missing = sandbox.run_collect(
            [a.replace("{dir}", "/tmp") for a in argv],
            limits=limits.for_sandbox(),
            files=files,
            collect=collect,
            collect_max_bytes=collect_max_bytes,
            env=env,
            gpu=gpu,
            cwd="/tmp",
        )
        if missing:
            log.info("run_files: not collected %s", missing)
        exit_ = _exit_from_result(result)
        exit_.not_collected = dict(missing)
        return exit_, dict(collected)
    private = _private_dir(work_dir)
    try:
        for name, data in files.items():
            with open(os.path.join(private, name), "wb") as fh:
                fh.write(data)
        proc = subprocess.Popen(
            [a.replace("{dir}", private) for a in argv],
            env=subprocess_env(env, private, gpu),
            cwd=private,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        child = _ProcessChild(proc, None, None, limits, private)
        exit_ = child.wait(timeout=limits.wall_seconds, timeout_reason="wall")
        collected = {}
        for name in collect:
            try:
                collected[name] = _read_regular_file(private, name, collect_max_bytes)
            except OSError as exc:
                exit_.not_collected[name] = exc.strerror or str(exc)
        exit_.stdout = exit_.stdout.replace(private + "/", "").replace(private, "")
        exit_.stderr = exit_.stderr.replace(private + "/", "").replace(private, "")
        return exit_, collected
    finally:
        shutil.rmtree(private, ignore_errors=True)


def write_cache_file(directory: str, name: str, data: bytes) -> str:
    """Put a trusted output into a cache directory without following a planted link."""
    os.makedirs(directory, exist_ok=True)
    if backend() == "sandbox":
        from sandbox import write_new_file

        return str(write_new_file(directory, name, data, 0o444))
    path = os.path.join(directory, name)
    tmp = os.path.join(directory, f".{name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
    os.chmod(tmp, 0o444)
    os.replace(tmp, path)
    return path
