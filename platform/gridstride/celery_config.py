"""Celery settings of the web side (the judge worker builds the same ones in judge/worker.py)."""

from __future__ import annotations

from django.conf import settings

broker_url = settings.CELERY_BROKER_URL
task_always_eager = settings.CELERY_TASK_ALWAYS_EAGER
task_acks_late = True
task_reject_on_worker_lost = True
worker_prefetch_multiplier = 1
task_default_queue = "web"
broker_connection_retry_on_startup = True

if broker_url.startswith("filesystem://"):
    _dir = settings.BROKER_DIR
    for sub in ("queue", "processed"):
        (_dir / sub).mkdir(parents=True, exist_ok=True)
    broker_transport_options = {
        "data_folder_in": str(_dir / "queue"),
        "data_folder_out": str(_dir / "queue"),
        "processed_folder": str(_dir / "processed"),
        "store_processed": False,
    }
else:
    broker_transport_options = {"visibility_timeout": settings.CELERY_VISIBILITY_TIMEOUT_S}
