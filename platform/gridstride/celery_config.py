"""Celery settings of the web side. judge/worker.py builds the same broker settings from the same
environment variables (it cannot import Django); tests/web/test_pipeline_config.py checks they agree.

Reliability choices (docs/pipeline.md explains them):
- late acknowledgement, prefetch 1 and reject-on-worker-lost: a message leaves the broker only
  after its task finished, and goes back when the process running it dies;
- the broker's visibility timeout is longer than the longest job (settings refuse otherwise);
- the producer retries publishing through a broker restart, and the worker reconnects forever.
"""

from __future__ import annotations

from django.conf import settings

broker_url = settings.CELERY_BROKER_URL
task_always_eager = settings.CELERY_TASK_ALWAYS_EAGER
task_acks_late = True
task_reject_on_worker_lost = True
worker_prefetch_multiplier = 1
worker_lost_wait = 1.0
task_default_queue = "web"
task_routes = {"gridstride.*": {"queue": "web"}}
task_ignore_result = True
broker_connection_retry_on_startup = True
broker_connection_max_retries = None
task_publish_retry_policy = {"max_retries": 10, "interval_start": 0.2, "interval_step": 0.5, "interval_max": 2.0}
worker_cancel_long_running_tasks_on_connection_loss = False

# Lower number runs first on Redis: assessment 0, contest 3, practice 6, rejudge 9.
PRIORITY_STEPS = [0, 3, 6, 9]
# The filesystem broker has no push: workers poll the folder this often (seconds).
FILESYSTEM_POLL_S = 0.02

if broker_url.startswith("filesystem://"):
    # The stock transport lets a consumer read a message before it is written (transports.py).
    broker_transport = "gridstride.submissions.transports:FilesystemTransport"
    _dir = settings.BROKER_DIR
    for sub in ("queue", "processed", "control"):
        (_dir / sub).mkdir(parents=True, exist_ok=True)
    broker_transport_options = {
        "data_folder_in": str(_dir / "queue"),
        "data_folder_out": str(_dir / "queue"),
        "processed_folder": str(_dir / "processed"),
        "control_folder": str(_dir / "control"),
        "store_processed": False,
        "polling_interval": FILESYSTEM_POLL_S,
        "dead_letter_folder": str(settings.VAR_DIR / "dead-letters"),
    }
else:
    if broker_url.startswith(("redis://", "rediss://")):
        # A message that is not JSON or not kombu's envelope is set aside, not fatal (transports.py).
        broker_transport = "gridstride.submissions.transports:RedisTransport"
    broker_transport_options = {
        "visibility_timeout": settings.CELERY_VISIBILITY_TIMEOUT_S,
        "dead_letter_folder": str(settings.VAR_DIR / "dead-letters"),
        "priority_steps": PRIORITY_STEPS,
        # Look for messages of dead consumers (unacked past the visibility timeout) every 10 s.
        "unacked_restore_interval": 10,
        "unacked_restore_throttle": 1,
        "socket_connect_timeout": 5,
        "socket_keepalive": True,
    }

# Beat rewrites its schedule file after each task it sends (docker-compose's health check reads its age).
beat_sync_every = 1
beat_schedule = {
    "sweep-leases": {
        "task": "gridstride.sweep_leases",
        "schedule": float(settings.JUDGE_SWEEP_INTERVAL_S),
        # A sweep that waited longer than one interval is superseded by the next one.
        "options": {"queue": "web", "expires": float(settings.JUDGE_SWEEP_INTERVAL_S)},
    },
    # Closes assessment sessions past their deadline and sends their webhooks (docs/assessments.md).
    "assessments-close-overdue": {
        "task": "gridstride.assessments.close_overdue",
        "schedule": float(settings.JUDGE_SWEEP_INTERVAL_S),
        "options": {"queue": "web", "expires": float(settings.JUDGE_SWEEP_INTERVAL_S)},
    },
    # Starts and resumes the final re-run of ended contests (idempotent: docs/contests.md).
    "contest-final-runs": {
        "task": "gridstride.contest_final_runs",
        "schedule": float(settings.JUDGE_SWEEP_INTERVAL_S),
        "options": {"queue": "web", "expires": float(settings.JUDGE_SWEEP_INTERVAL_S)},
    },
}
