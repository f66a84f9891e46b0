"""Which judges are online, as they advertise themselves (judge.worker's `judge_info` command)."""

from __future__ import annotations

from typing import Any

from gridstride.submissions import broker


def online_judges(timeout: float = 2.0) -> list[dict[str, Any]]:
    """One entry per live judge worker: node, queue, gpu_model, gpu_name, capabilities, harness.

    A broadcast over the broker, answered within `timeout` seconds; [] when none answers.
    """
    replies = broker.celery_app().control.broadcast("judge_info", reply=True, timeout=timeout)
    judges = []
    for reply in replies or []:
        for node, info in reply.items():
            if isinstance(info, dict) and info.get("queue"):
                judges.append({"node": node, **info})
    return sorted(judges, key=lambda j: (j["queue"], j["node"]))
