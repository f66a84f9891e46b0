"""The web side's Celery app: enqueues judge tasks by name, records reports from judges.

It never imports the judge's task code: jobs are sent by name (`judge.run`) to a queue per GPU
model, and judges answer by sending `gridstride.record_report` to the `web` queue.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from celery import Celery

# `celery -A gridstride` runs from platform/; the site also imports judge.spec/judge.protocol
# from the repository root (manage.py does the same for platform/).
_REPO_ROOT = str(Path(__file__).resolve().parents[2])
if _REPO_ROOT not in sys.path:
    sys.path.append(_REPO_ROOT)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gridstride.settings")

app = Celery("gridstride")
app.config_from_object("gridstride.celery_config")
app.autodiscover_tasks(["gridstride.submissions", "gridstride.contests", "gridstride.assessments"])
