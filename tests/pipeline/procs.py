"""Real processes for the pipeline's fault tests and benchmark: a private redis-server, the
Celery web worker (with beat) from .venv/web, judge workers from .venv/judge with the trivial
harness, and a TCP proxy that can cut the database off. Every wait is bounded; stop() ends
every process this module started, by its own process group.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
WEB_PY = ROOT / ".venv" / "web" / "bin" / "python"
# A linked .venv (a worktree sharing another checkout's environments) is resolved: the sandbox of
# the real harness sees real paths only (the interpreter's own link is kept: the venv is found by it).
JUDGE_PY = Path(os.path.realpath(ROOT / ".venv")) / "judge" / "bin" / "python"
TRIVIAL = "tests.pipeline.trivial_harness:judge_job"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def alive(pid: int) -> bool:
    """Whether the process runs; a killed one its parent has not reaped yet (a zombie) does not."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] not in ("Z", "X")  # the state follows the command name


def wait_for(what: str, check: Callable[[], Any], timeout: float, interval: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"gave up after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


class Process:
    """One child in its own session, so a kill reaches its pool processes too."""

    def __init__(self, name: str, argv: list[str], *, cwd: Path, env: dict[str, str], log: Path) -> None:
        self.name, self.log = name, log
        self._out = open(log, "ab")  # noqa: SIM115 (closed in stop)
        self.popen = subprocess.Popen(
            argv, cwd=cwd, env=env, stdout=self._out, stderr=subprocess.STDOUT, start_new_session=True
        )

    @property
    def pid(self) -> int:
        return self.popen.pid

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def wait_log(self, needle: str, timeout: float = 60) -> None:
        def seen() -> bool:
            if self.popen.poll() is not None:
                raise RuntimeError(f"{self.name} exited ({self.popen.returncode}):\n{self.text()[-3000:]}")
            return needle in self.text()

        wait_for(f"{self.name} to log {needle!r}", seen, timeout, 0.1)

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, sig)

    def stop(self, timeout: float = 10) -> None:
        if self.popen.poll() is None:
            # SIGTERM to the main process only, as docker stop does: Celery then stops its pool.
            # (SIGTERM to the whole group can leave billiard waiting on a lock a dying child held.)
            with contextlib.suppress(ProcessLookupError):
                self.popen.terminate()
            try:
                self.popen.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill(signal.SIGKILL)
                self.popen.wait(10)
        self._out.close()


class RedisServer:
    """A private redis-server with persistence on, so a restart keeps what was queued."""

    def __init__(self, folder: Path, appendfsync: str = "always") -> None:
        self.folder = folder
        self.appendfsync = appendfsync
        self.port = free_port()
        folder.mkdir(parents=True, exist_ok=True)
        self.proc: Process | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        argv = [
            "redis-server",
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(self.folder),
            "--appendonly",
            "yes",
            "--appendfsync",
            self.appendfsync,
            "--save",
            "",
            "--maxmemory-policy",
            "noeviction",
        ]
        self.proc = Process("redis", argv, cwd=self.folder, env=dict(os.environ), log=self.folder / "redis.log")
        wait_for("redis to accept connections", self._ping, 20)

    def _ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def restart(self, down_s: float = 1.0) -> None:
        """SHUTDOWN (writes the append-only file), stay down a moment, start on the same port."""
        assert self.proc is not None
        self.proc.stop()
        time.sleep(down_s)
        self.start()

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.stop()


class TcpProxy:
    """Forwards 127.0.0.1:port to a target; while `down`, cuts every connection and refuses new ones."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self.down = False
        self._conns: list[socket.socket] = []
        self._lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def cut(self) -> None:
        self.down = True
        with self._lock:
            for s in self._conns:
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()
            self._conns.clear()

    def restore(self) -> None:
        self.down = False

    def close(self) -> None:
        self._closed = True
        self.cut()
        self.listener.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.down:
                client.close()
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)


class Stack:
    """The production topology without containers: web worker + beat, judge workers."""

    def __init__(self, folder: Path, *, database_url: str, broker_url: str, **env: str) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.trivial_dir = folder / "trivial"
        self.env = {
            **os.environ,
            "DEBUG": "1",
            "PYTHONPATH": str(ROOT),
            "PYTHONDONTWRITEBYTECODE": "1",
            "DATABASE_URL": database_url,
            "CELERY_BROKER_URL": broker_url,
            "GRIDSTRIDE_VAR_DIR": str(folder / "var"),
            "GRIDSTRIDE_JUDGE_HARNESS": TRIVIAL,
            "GRIDSTRIDE_TRIVIAL_DIR": str(self.trivial_dir),
            "JUDGE_LEASE_S": "6",
            "JUDGE_HEARTBEAT_S": "1",
            "JUDGE_SWEEP_INTERVAL_S": "1",
            "JUDGE_TIME_LIMIT_S": "60",
            "CELERY_VISIBILITY_TIMEOUT_S": "90",
            "JUDGE_MAX_ATTEMPTS": "3",
            "LOG_LEVEL": "INFO",
            **env,
        }
        self.web: Process | None = None
        self.judges: dict[str, Process] = {}
        self._starts = 0

    def start_web(self) -> Process:
        argv = [
            str(WEB_PY), "-m", "celery", "-A", "gridstride", "worker", "-Q", "web", "-B",
            "--concurrency", "1", "--loglevel", "INFO", "--hostname", f"web-{self._bump()}@%h",
            "--schedule", str(self.folder / "celerybeat-schedule"), "--without-gossip", "--without-mingle",
        ]  # fmt: skip
        self.web = Process("web worker", argv, cwd=ROOT / "platform", env=self.env, log=self.folder / "web.log")
        self.web.wait_log("ready.")
        return self.web

    def start_judge(self, name: str = "0", **env: str) -> Process:
        argv = [str(JUDGE_PY), "-m", "judge", "worker", "--gpu-model", "cpu", "--name", name]
        proc = Process(
            f"judge {name}",
            argv,
            cwd=ROOT,
            env={**self.env, **env},
            log=self.folder / f"judge-{name}-{self._bump()}.log",
        )
        proc.wait_log("ready.")
        self.judges[name] = proc
        return proc

    def _bump(self) -> int:
        self._starts += 1
        return self._starts

    def running_pids(self) -> dict[str, int]:
        """submission.attempt -> pid of the pool process judging it right now (trivial harness).

        A process killed mid-job never removes its marker: only markers of live processes count
        (a stale one once hid the job running next, in whatever order the directory listed them)."""
        folder = self.trivial_dir / "running"
        found = {}
        for path in folder.glob("*") if folder.exists() else []:
            sub, attempt, pid = path.name.rsplit(".", 2)
            if alive(int(pid)):
                found[f"{sub}.{attempt}"] = int(pid)
        return found

    def runs(self) -> list[tuple[str, int]]:
        """Every start of a job the trivial harness saw: (submission id, attempt)."""
        log = self.trivial_dir / "runs.log"
        if not log.exists():
            return []
        return [(line.split()[0], int(line.split()[1])) for line in log.read_text().splitlines() if line.strip()]

    def logs(self) -> str:
        parts = []
        for path in sorted(self.folder.glob("*.log")):
            parts.append(f"===== {path.name}\n{path.read_text(errors='replace')[-4000:]}")
        return "\n".join(parts)

    def stop(self) -> None:
        for proc in [*self.judges.values(), *([self.web] if self.web else [])]:
            proc.stop()
