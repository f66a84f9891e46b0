"""Settings come from the environment and a bad value stops start-up with a message naming it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def django_check(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL"}
    }
    clean.update({"GRIDSTRIDE_VAR_DIR": str(tmp_path), **env})
    return subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=clean, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({}, "SECRET_KEY"),
        ({"DEBUG": "maybe"}, "DEBUG"),
        ({"DEBUG": "1", "DATABASE_CONN_MAX_AGE": "forever"}, "DATABASE_CONN_MAX_AGE"),
        ({"DEBUG": "1", "DATABASE_URL": "nosuchdb://x"}, "DATABASE_URL"),
        ({"DEBUG": "1", "CELERY_BROKER_URL": "amqp://guest@localhost//"}, "CELERY_BROKER_URL"),
        ({"DEBUG": "1", "SECRET_KEY_FILE": "/nonexistent/secret"}, "SECRET_KEY_FILE"),
        ({"DEBUG": "1", "SECRET_KEY": "a", "SECRET_KEY_FILE": "/etc/hostname"}, "SECRET_KEY_FILE"),
    ],
)
def test_a_bad_setting_stops_start_up_naming_the_variable(tmp_path: Path, env: dict[str, str], named: str) -> None:
    result = django_check(tmp_path, **env)
    assert result.returncode != 0
    assert named in result.stderr.splitlines()[-1], result.stderr[-2000:]


def test_a_secret_key_file_is_read_and_debug_off_needs_no_other_setting(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("x" * 60 + "\n")
    result = django_check(tmp_path, SECRET_KEY_FILE=str(secret), ALLOWED_HOSTS="example.org")
    assert result.returncode == 0, result.stderr[-2000:]
