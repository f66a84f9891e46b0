"""The pipeline's configuration: the site and the judges agree on the broker, the time limits nest
(sandbox < soft < hard < visibility timeout), and docker-compose.yml has the production topology.
No Docker engine runs here, so the compose file is checked as data.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.test import override_settings
from gridstride import celery_config
from gridstride.celery import app as web_app

from judge import gpu_compose, worker

ROOT = Path(__file__).resolve().parents[2]


def web_options(**overrides: Any) -> dict[str, Any]:
    with override_settings(**overrides):
        try:
            return dict(importlib.reload(celery_config).broker_transport_options)
        finally:
            importlib.reload(celery_config)


def judge_settings(broker_url: str, var_dir: Path, visibility: int = 3600) -> worker.Settings:
    return worker.Settings(
        broker_url=broker_url,
        var_dir=var_dir,
        visibility_timeout_s=visibility,
        time_limit_s=1200,
        soft_time_limit_s=1140,
        heartbeat_s=15,
        max_runs=3,
        harness="",
    )


def test_site_and_judge_use_the_same_filesystem_broker_folders(tmp_path: Path) -> None:
    web = web_options(CELERY_BROKER_URL="filesystem://", BROKER_DIR=tmp_path / "broker", VAR_DIR=tmp_path)
    assert web == worker.transport_options(judge_settings("filesystem://", tmp_path))
    assert web["control_folder"] == str(tmp_path / "broker" / "control")


def test_site_and_judge_use_the_same_redis_options(tmp_path: Path) -> None:
    web = web_options(CELERY_BROKER_URL="redis://127.0.0.1:6379/0", CELERY_VISIBILITY_TIMEOUT_S=5000, VAR_DIR=tmp_path)
    assert web == worker.transport_options(judge_settings("redis://127.0.0.1:6379/0", tmp_path, 5000))
    assert web["priority_steps"] == [0, 3, 6, 9]
    assert web["dead_letter_folder"] == str(tmp_path / "dead-letters")


def test_both_sides_acknowledge_late_and_requeue_when_a_worker_dies() -> None:
    judge_conf = worker.celery_config(judge_settings("filesystem://", Path("/tmp")))
    for conf in (judge_conf, vars(celery_config)):
        assert conf["task_acks_late"] is True
        assert conf["task_reject_on_worker_lost"] is True
        assert conf["worker_prefetch_multiplier"] == 1
        assert conf["broker_connection_max_retries"] is None
        assert conf["worker_lost_wait"] <= 2
    task = worker.app.tasks["judge.run"]
    assert task.acks_late and task.reject_on_worker_lost


def test_a_judge_runs_one_job_at_a_time_on_its_gpu_queue() -> None:
    argv = worker.worker_argv("judge.h200", "judge-h200-gpu0@host", "INFO", Path("/tmp/state"))
    assert argv[argv.index("--queues") + 1] == "judge.h200"
    assert argv[argv.index("--concurrency") + 1] == "1"
    assert argv[argv.index("--pool") + 1] == "prefork"  # the job runs in a child the worker can outlive


def test_time_limits_nest_inside_the_visibility_timeout() -> None:
    s = worker.Settings.from_env()
    assert s.soft_time_limit_s < s.time_limit_s < s.visibility_timeout_s
    conf = worker.celery_config(s)
    assert conf["task_soft_time_limit"] < conf["task_time_limit"]


@pytest.mark.parametrize("side", ["web", "judge"])
def test_a_visibility_timeout_shorter_than_a_job_refuses_to_start(side: str) -> None:
    env = {**os.environ, "DEBUG": "1", "CELERY_VISIBILITY_TIMEOUT_S": "600", "JUDGE_TIME_LIMIT_S": "1200"}
    code = "import django; django.setup()" if side == "web" else "import judge.worker"
    env.setdefault("DJANGO_SETTINGS_MODULE", "gridstride.settings")
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**env, "PYTHONPATH": f"{ROOT / 'platform'}:{ROOT}"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode != 0
    assert "must be longer than JUDGE_TIME_LIMIT_S (1200)" in out.stderr


def test_the_site_routes_its_tasks_to_the_web_queue_and_schedules_the_sweeper() -> None:
    assert web_app.conf.task_default_queue == "web"
    assert web_app.conf.task_routes == {"gridstride.*": {"queue": "web"}}
    sweep = web_app.conf.beat_schedule["sweep-leases"]
    assert sweep["task"] == "gridstride.sweep_leases" and sweep["options"]["queue"] == "web"
    from gridstride.submissions import tasks

    names = {t.name for t in (tasks.record_report, tasks.record_progress, tasks.sweep_leases)}
    assert names == {"gridstride.record_report", "gridstride.record_progress", "gridstride.sweep_leases"}
    assert worker.REPORT_TASK == "gridstride.record_report" and worker.WEB_QUEUE == "web"


# --- docker-compose.yml -----------------------------------------------------------------------


# A two-GPU host's judges as `python -m judge compose-gpus` writes them (judge/gpu_compose.py).
TWO_GPUS = "0, NVIDIA H200, GPU-0000aaaa\n1, NVIDIA H200, GPU-1111bbbb\n"


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    """docker-compose.yml with a generated judges file on top, as `docker compose -f ... -f ...`
    merges them (the generated file only adds services and the judges' volume)."""
    base = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    workers = gpu_compose.plan_workers(gpu_compose.parse_gpus(TWO_GPUS), cpus=32)
    judges = yaml.safe_load(gpu_compose.render(workers))
    assert not set(base["services"]) & set(judges["services"])
    base["services"].update(judges["services"])
    base["volumes"].update(judges["volumes"])
    return base


def command(service: dict[str, Any]) -> str:
    return " ".join(service["command"])


def test_compose_has_the_production_services_each_with_a_health_check(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert {"postgres", "redis", "migrate", "web", "celery-web", "beat", "judge-gpu0"} <= set(services)
    for name, service in services.items():
        if name != "migrate":
            assert "healthcheck" in service, name
            assert service.get("restart") == "unless-stopped", name
    assert services["postgres"]["image"] == "postgres:16"
    assert services["redis"]["image"] == "redis:7"
    assert "gunicorn" in command(services["web"])
    assert "-Q web" in command(services["celery-web"])
    assert " beat " in f" {command(services['beat'])} "
    assert services["web"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert {"postgres-data", "redis-data"} <= set(compose["volumes"])


def test_compose_redis_persists_never_evicts_and_needs_a_password(compose: dict[str, Any]) -> None:
    redis = compose["services"]["redis"]
    assert "--requirepass" in command(redis)
    assert "REDIS_PASSWORD:?" in redis["environment"]["REDIS_PASSWORD"]
    assert "./deploy/redis.conf:/usr/local/etc/redis/redis.conf:ro" in redis["volumes"]
    conf = dict(
        line.split(None, 1) for line in (ROOT / "deploy/redis.conf").read_text().splitlines() if line and line[0] != "#"
    )
    assert conf["appendonly"] == "yes"
    assert conf["maxmemory-policy"] == "noeviction"
    assert "requirepass" not in conf  # the password never sits in the repository
    for name in ("web", "celery-web", "beat", "judge-gpu0"):
        env = compose["services"][name]["environment"]
        assert env["CELERY_BROKER_URL"].startswith("redis://:${REDIS_PASSWORD:?"), name


def test_compose_judges_are_one_per_gpu_on_the_nvidia_runtime_and_never_privileged(compose: dict[str, Any]) -> None:
    judges = {k: v for k, v in compose["services"].items() if k.startswith("judge-")}
    assert judges
    gpus = []
    for name, judge in judges.items():
        assert not judge.get("privileged"), name
        devices = judge["deploy"]["resources"]["reservations"]["devices"]
        assert len(devices) == 1 and devices[0]["driver"] == "nvidia" and devices[0]["capabilities"] == ["gpu"]
        assert len(devices[0]["device_ids"]) == 1, "one GPU per worker"
        gpus += devices[0]["device_ids"]
        assert "judge worker" in command(judge)
        assert "SYS_ADMIN" in judge["cap_add"]
    assert len(gpus) == len(set(gpus)), "two judges on one GPU"
    assert not any(s.get("privileged") for s in compose["services"].values())


def test_compose_judges_require_every_sandbox_layer_by_default(compose: dict[str, Any]) -> None:
    import re

    from judge.harness.parent.launch import SandboxSetting

    judges = {k: v for k, v in compose["services"].items() if k.startswith("judge-")}
    for name, judge in judges.items():
        env = judge["environment"]
        assert "GRIDSTRIDE_JUDGE_SANDBOX" not in env, f"{name}: the development switch is never set in production"
        # Unset in .env, the variable's default is what the worker reads.
        default = re.fullmatch(r"\$\{GRIDSTRIDE_SANDBOX_REQUIRE:-([^}]*)\}", env["GRIDSTRIDE_SANDBOX_REQUIRE"])
        assert default is not None and default.group(1) == "all", name
        setting = SandboxSetting.from_env({"GRIDSTRIDE_SANDBOX_REQUIRE": default.group(1)})
        assert setting.enabled and setting.required is None, "every layer"


def test_compose_site_and_judges_agree_on_the_visibility_timeout_and_job_limit(compose: dict[str, Any]) -> None:
    web_env = compose["services"]["celery-web"]["environment"]
    judge_env = compose["services"]["judge-gpu0"]["environment"]
    for key in ("CELERY_VISIBILITY_TIMEOUT_S", "JUDGE_TIME_LIMIT_S"):
        assert web_env[key] == judge_env[key], key


# --- the filesystem broker ----------------------------------------------------------------------


def test_both_sides_use_the_atomic_filesystem_transport(tmp_path: Path) -> None:
    with override_settings(CELERY_BROKER_URL="filesystem://", BROKER_DIR=tmp_path / "broker"):
        try:
            assert (
                importlib.reload(celery_config).broker_transport
                == "gridstride.submissions.transports:FilesystemTransport"
            )
        finally:
            importlib.reload(celery_config)
    conf = worker.celery_config(judge_settings("filesystem://", tmp_path))
    assert conf["broker_transport"] == "judge.transports:FilesystemTransport"
    redis_conf = worker.celery_config(judge_settings("redis://x:6379/0", tmp_path))
    assert redis_conf["broker_transport"] == "judge.transports:RedisTransport"


@pytest.mark.parametrize(
    "transport", ["gridstride.submissions.transports:FilesystemTransport", "judge.transports:FilesystemTransport"]
)
def test_a_consumer_polling_while_messages_are_written_never_reads_half_a_message(
    tmp_path: Path, transport: str
) -> None:
    import threading
    from queue import Empty

    from kombu import Connection

    folder = str(tmp_path)
    options = {"data_folder_in": folder, "data_folder_out": folder, "processed_folder": folder}
    count = 400
    with Connection("filesystem://", transport=transport, transport_options=options) as conn:
        writer, reader = conn.channel(), conn.channel()
        big = "x" * 200_000  # long writes widen the window the stock transport leaves open
        thread = threading.Thread(target=lambda: [writer._put("q", {"n": i, "pad": big}) for i in range(count)])
        thread.start()
        seen: list[int] = []
        deadline = time.monotonic() + 60
        while len(seen) < count and time.monotonic() < deadline:
            with contextlib.suppress(Empty):
                seen.append(reader._get("q")["n"])
        thread.join()
    assert sorted(seen) == list(range(count))
