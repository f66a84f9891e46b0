"""This host's judge workers, one per GPU (or per group of GPUs), written as a compose file.

    python -m judge compose-gpus [--layout 1,1,2] [--memory-gib 96] [--remote] > docker-compose.gpus.yml

The GPUs come from `nvidia-smi --query-gpu=index,name,uuid` on the host. Each worker gets its
GPUs by UUID (stable when the driver renumbers devices), its own container and so its own cgroup,
a share of the host's CPUs, and the queue of its model and GPU count (judge.protocol.judge_queue).
Everything the worker then sees is numbered from 0 inside its container; the sandbox finds each
GPU's device node by its minor number (sandbox/plan.py), so a job on host GPU 3 gets /dev/nvidia3.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from judge.host import gpu_model_of
from judge.protocol import MAX_WORKER_GPUS, judge_queue

QUERY = ["nvidia-smi", "--query-gpu=index,name,uuid", "--format=csv,noheader"]


@dataclass(frozen=True)
class Gpu:
    index: int
    name: str
    uuid: str

    @property
    def model(self) -> str:
        return gpu_model_of(self.name)


def parse_gpus(text: str) -> list[Gpu]:
    """The GPUs in nvidia-smi's CSV (`0, NVIDIA H200, GPU-…` per line), in index order."""
    gpus = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != 3 or not fields[0].isdigit() or not fields[2].startswith(("GPU-", "MIG-")):
            raise ValueError(f"nvidia-smi line {number}: expected 'index, name, uuid', got {line.strip()!r}")
        gpus.append(Gpu(index=int(fields[0]), name=fields[1], uuid=fields[2]))
    if not gpus:
        raise ValueError("nvidia-smi lists no GPU")
    return sorted(gpus, key=lambda g: g.index)


def query_gpus() -> list[Gpu]:
    return parse_gpus(subprocess.run(QUERY, capture_output=True, text=True, timeout=60, check=True).stdout)


@dataclass(frozen=True)
class Worker:
    gpus: tuple[Gpu, ...]
    cpuset: str | None  # host CPUs, "a-b"; None where the host has fewer CPUs than GPUs

    @property
    def name(self) -> str:
        first, last = self.gpus[0].index, self.gpus[-1].index
        return f"gpu{first}" if first == last else f"gpu{first}-{last}"

    @property
    def service(self) -> str:
        return f"judge-{self.name}"

    @property
    def model(self) -> str:
        return self.gpus[0].model

    @property
    def queue(self) -> str:
        return judge_queue(self.model, len(self.gpus))


def plan_workers(gpus: Sequence[Gpu], layout: Sequence[int] | None = None, cpus: int = 0) -> list[Worker]:
    """Workers over `gpus` in index order: `layout` gives each worker's GPU count (default one
    each) and must use every GPU once; a worker's GPUs are one model. Each GPU's share of the
    CPUs is cpus // len(gpus) consecutive CPUs, so neighbouring GPUs (often one NUMA node) get
    neighbouring CPUs; a worker of k GPUs gets k shares."""
    sizes = list(layout) if layout else [1] * len(gpus)
    if any(not 1 <= k <= MAX_WORKER_GPUS for k in sizes):
        raise ValueError(f"each worker holds 1 to {MAX_WORKER_GPUS} GPUs: {sizes}")
    if sum(sizes) != len(gpus):
        raise ValueError(f"the layout {sizes} holds {sum(sizes)} GPUs; this host has {len(gpus)}")
    share = cpus // len(gpus)
    workers = []
    start = 0
    for k in sizes:
        group = tuple(gpus[start : start + k])
        models = {g.model for g in group}
        if len(models) > 1:
            raise ValueError(
                f"GPUs {[g.index for g in group]} are of several models {sorted(models)}: one worker, one model"
            )
        first, last = start * share, (start + k) * share - 1
        cpuset = None if not share else str(first) if first == last else f"{first}-{last}"
        workers.append(Worker(gpus=group, cpuset=cpuset))
        start += k
    return workers


# The container's needs, as the sandbox (sandbox/README.md) has them: not privileged, but it
# builds fresh namespaces and mounts for every submission and drops it to uid 65534, which takes
# these capabilities; AppArmor's default container profile forbids its mounts. The worker refuses
# to start naming a missing isolation layer (GRIDSTRIDE_SANDBOX_REQUIRE may name fewer, explicitly).
CAPABILITIES = ["SYS_ADMIN", "SETUID", "SETGID", "SYS_RESOURCE", "KILL"]
LOCAL_BROKER = "redis://:${REDIS_PASSWORD:?set REDIS_PASSWORD in .env}@redis:6379/0"
REMOTE_BROKER = "${CELERY_BROKER_URL:?set CELERY_BROKER_URL in .env: the site's Redis}"
# The worker answers a broadcast ping under its node name (judge-<model>-<name>@<container>).
HEALTHCHECK = 'celery -A judge.worker inspect ping --timeout 10 | grep -q "@$$HOSTNAME"'


def service(worker: Worker, *, memory_gib: int | None, remote: bool) -> dict[str, Any]:
    uuids = [g.uuid for g in worker.gpus]
    svc: dict[str, Any] = {
        "build": {"context": ".", "dockerfile": "deploy/judge.Dockerfile"},
        "image": "gridstride-judge:latest",
        "restart": "unless-stopped",
        "command": ["python3", "-m", "judge", "worker", "--name", worker.name, "--gpus", str(len(worker.gpus))],
        "cap_add": CAPABILITIES,
        "security_opt": ["apparmor=unconfined"],
        "environment": {
            "CELERY_BROKER_URL": REMOTE_BROKER if remote else LOCAL_BROKER,
            "GRIDSTRIDE_VAR_DIR": "/var/lib/gridstride",
            "CELERY_VISIBILITY_TIMEOUT_S": "${CELERY_VISIBILITY_TIMEOUT_S:-3600}",
            "JUDGE_TIME_LIMIT_S": "${JUDGE_TIME_LIMIT_S:-1200}",
            "GRIDSTRIDE_SANDBOX_REQUIRE": "${GRIDSTRIDE_SANDBOX_REQUIRE:-all}",
            # The container holds only these GPUs, and numbers them from 0: host indices would
            # name devices that do not exist inside.
            "NVIDIA_VISIBLE_DEVICES": ",".join(uuids),
            "CUDA_VISIBLE_DEVICES": ",".join(str(i) for i in range(len(uuids))),
        },
        "volumes": ["judge-var:/var/lib/gridstride"],
        "healthcheck": {
            "test": ["CMD-SHELL", HEALTHCHECK],
            "interval": "60s",
            "timeout": "30s",
            "retries": 3,
            "start_period": "120s",
        },
        "deploy": {
            "resources": {
                "reservations": {"devices": [{"driver": "nvidia", "device_ids": uuids, "capabilities": ["gpu"]}]}
            }
        },
    }
    if worker.cpuset:
        svc["cpuset"] = worker.cpuset
    if memory_gib:
        svc["mem_limit"] = f"{memory_gib}g"
    if not remote:
        svc["depends_on"] = {"redis": {"condition": "service_healthy"}}
    return svc


def render(workers: Sequence[Worker], *, memory_gib: int | None = None, remote: bool = False) -> str:
    lines = [
        "# Generated by `python -m judge compose-gpus` from this host's nvidia-smi: regenerate it, do",
        "# not edit it, when the host's GPUs change. One judge worker per line below:",
    ]
    for w in workers:
        gpus = ", ".join(f"{g.index} {g.uuid}" for g in w.gpus)
        lines.append(f"#   {w.service}: {w.queue}, GPU {gpus}, CPUs {w.cpuset or 'shared'}")
    doc = {
        "name": "gridstride",
        "services": {w.service: service(w, memory_gib=memory_gib, remote=remote) for w in workers},
        "volumes": {"judge-var": None},
    }
    return "\n".join(lines) + "\n" + _yaml(doc, 0) + "\n"


def _yaml(value: Any, indent: int) -> str:
    """Block YAML for mappings, flow lists for lists of scalars; strings JSON-quoted (a JSON
    string is a YAML double-quoted scalar), so no value is ever read as another type."""
    pad = "  " * indent
    if isinstance(value, dict):
        out = []
        for key, item in value.items():
            if item is None:
                out.append(f"{pad}{key}:")
            elif isinstance(item, dict) or (isinstance(item, list) and any(isinstance(x, dict) for x in item)):
                out.append(f"{pad}{key}:\n{_yaml(item, indent + 1)}")
            else:
                out.append(f"{pad}{key}: {_scalar(item)}")
        return "\n".join(out)
    if isinstance(value, list):
        return "\n".join(f"{pad}- " + _yaml(item, indent + 1).lstrip() for item in value)
    return pad + _scalar(value)


def _scalar(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_scalar(x) for x in value) + "]"
    if isinstance(value, bool | int):
        return json.dumps(value)
    return json.dumps(str(value))
