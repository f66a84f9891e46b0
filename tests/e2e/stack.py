"""The real Gridstride stack as processes, for the browser tests: the site (Django's runserver from
.venv/web), the Celery web worker with beat, and a CPU judge worker (`python -m judge worker` from
.venv/judge), sharing a throwaway SQLite database and a filesystem broker in a temporary folder.

Every process runs in its own session; stop() ends exactly the processes started here.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import urllib.request
from pathlib import Path

from tests.pipeline.procs import free_port, wait_for

ROOT = Path(__file__).resolve().parents[2]
WEB_PY = ROOT / ".venv" / "web" / "bin" / "python"
WEB_CELERY = ROOT / ".venv" / "web" / "bin" / "celery"
# The judge's environment (./gs makes it); a GPU host's system python already has torch and triton.
# The .venv folder itself may be a link (a worktree sharing another checkout's environments): the
# sandbox sees real paths only, so the link is resolved (the interpreter's own link is not: the
# venv is found next to it).
JUDGE_PY = Path(os.path.realpath(ROOT / ".venv")) / "judge" / "bin" / "python"
if not JUDGE_PY.exists():
    JUDGE_PY = Path(shutil.which("python3") or "python3")


class Proc:
    def __init__(self, name: str, argv: list[str], *, cwd: Path, env: dict[str, str], log: Path) -> None:
        self.name, self.log = name, log
        self._out = open(log, "ab")  # noqa: SIM115 (closed in stop)
        self.popen = subprocess.Popen(
            argv, cwd=cwd, env=env, stdout=self._out, stderr=subprocess.STDOUT, start_new_session=True
        )

    def alive(self) -> bool:
        return self.popen.poll() is None

    def tail(self, chars: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-chars:] if self.log.exists() else ""

    def stop(self) -> None:
        # SIGTERM to the main process only (Celery shuts its pool down itself; a SIGTERM to the
        # whole group can deadlock billiard), then SIGKILL to the whole session if it hangs.
        if self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.popen.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(20)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, signal.SIGKILL)  # leftovers of its session (pool children)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(10)
        self._out.close()


class Stack:
    def __init__(self, folder: Path, *, harness: str = "") -> None:
        self.folder = folder
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.harness = harness
        self.procs: list[Proc] = []
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "CELERY_", "PYTEST"))},
            "DEBUG": "1",
            "SECRET_KEY": "e2e-only-secret-key",
            "GRIDSTRIDE_VAR_DIR": str(folder / "var"),
            "DATABASE_URL": f"sqlite:///{folder / 'site.sqlite3'}",
            "CELERY_BROKER_URL": "filesystem://",
            "JUDGE_DEFAULT_GPU": "cpu",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "PYTHONPATH": f"{ROOT}:{ROOT / 'platform'}",
            "PYTHONDONTWRITEBYTECODE": "1",
            "SUBMISSIONS_PER_MINUTE": "100",
            "LOG_LEVEL": "INFO",
        }
        if harness:
            self.env["GRIDSTRIDE_JUDGE_HARNESS"] = harness

    def manage(self, *args: str) -> str:
        out = subprocess.run(
            [str(WEB_PY), "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=300
        )
        if out.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{out.stdout}\n{out.stderr}")
        return out.stdout

    def start(self) -> None:
        (self.folder / "var").mkdir(parents=True, exist_ok=True)
        self.manage("migrate", "--no-input", "-v0")
        self.manage("sync_problems")
        logs = self.folder
        self.procs.append(
            Proc(
                "site",
                [str(WEB_PY), "manage.py", "runserver", f"127.0.0.1:{self.port}", "--noreload"],
                cwd=ROOT,
                env=self.env,
                log=logs / "site.log",
            )
        )
        self.procs.append(
            Proc(
                "web-worker",
                [
                    str(WEB_CELERY),
                    "-A",
                    "gridstride",
                    "worker",
                    "-Q",
                    "web",
                    "-B",
                    "--concurrency",
                    "1",
                    "--loglevel",
                    "INFO",
                    "--schedule",
                    str(self.folder / "var" / "beat-schedule"),
                ],
                cwd=ROOT / "platform",
                env=self.env,
                log=logs / "web-worker.log",
            )
        )
        self.procs.append(
            Proc(
                "judge",
                [str(JUDGE_PY), "-m", "judge", "worker", "--gpu-model", "cpu"],
                cwd=ROOT,
                env=self.env,
                log=logs / "judge.log",
            )
        )
        wait_for("the site to answer", self._site_up, 60, 0.2)
        for proc in self.procs[1:]:
            wait_for(f"{proc.name} to be ready", lambda p=proc: self._ready(p), 180, 0.5)

    def _site_up(self) -> bool:
        self._check_alive()
        try:
            with urllib.request.urlopen(f"{self.url}/healthz", timeout=2) as r:
                return r.status == 200
        except OSError:
            return False

    def _ready(self, proc: Proc) -> bool:
        self._check_alive()
        return " ready." in proc.tail(200_000)

    def _check_alive(self) -> None:
        for proc in self.procs:
            if not proc.alive():
                raise RuntimeError(f"{proc.name} exited ({proc.popen.returncode}):\n{proc.tail()}")

    def logs(self) -> str:
        return "\n".join(f"===== {p.name} =====\n{p.tail(6000)}" for p in self.procs)

    def stop(self) -> None:
        for proc in reversed(self.procs):
            proc.stop()
