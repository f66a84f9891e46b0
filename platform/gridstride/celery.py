"""The web side's Celery app: enqueues judge tasks by name, records reports from judges.

It never imports the judge's task code: jobs are sent by name (`judge.run`) to a queue per GPU
model, and judges answer by sending `gridstride.record_report` to the `web` queue.
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gridstride.settings")

app = Celery("gridstride")
app.config_from_object("gridstride.celery_config")
app.autodiscover_tasks(["gridstride.submissions"])
