"""Which judges exist for a problem: GPU models, and how many GPUs of one host a judging holds.

A problem needing one GPU is offered on every configured model (JUDGE_DEFAULT_GPU,
JUDGE_GPU_MODELS). A problem needing k > 1 is offered only on the models JUDGE_GPU_POOLS lists
with k ("h200:2"): the judges there hold k GPUs at once and serve judge.<model>.x<k>
(judge.protocol.judge_queue; docs/pipeline.md, "Hosts with several GPUs"). The site reads the
pools from its settings rather than asking the workers: a submission to a pool whose judges
are all down waits in its queue, as one to a model does.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from judge.protocol import MAX_WORKER_GPUS


def gpus_needed(spec: dict[str, Any] | None) -> int:
    """The GPU count of a stored problem spec (ProblemVersion.spec); specs stored before the
    field existed need one."""
    return int((spec or {}).get("gpus", 1))


def single_gpu_models() -> list[str]:
    """The models of one-GPU judges, the default first."""
    default = settings.JUDGE_DEFAULT_GPU
    return [default, *[g for g in settings.JUDGE_GPU_MODELS if g != default]]


def multi_gpu_pools() -> list[tuple[str, int]]:
    """JUDGE_GPU_POOLS as (model, count) pairs; a malformed entry stops the site with its name."""
    pools = []
    for entry in settings.JUDGE_GPU_POOLS:
        model, _, count = entry.partition(":")
        if not model or not count.isdigit() or not 2 <= int(count) <= MAX_WORKER_GPUS:
            raise ImproperlyConfigured(
                f"JUDGE_GPU_POOLS entry {entry!r}: write <model>:<count>, count 2 to {MAX_WORKER_GPUS} (h200:2)"
            )
        pools.append((model, int(count)))
    return pools


def models_for(gpus: int) -> list[str]:
    """The models on which a problem needing `gpus` GPUs can be judged, the default first."""
    if gpus == 1:
        return single_gpu_models()
    found = [model for model, count in multi_gpu_pools() if count == gpus]
    default = settings.JUDGE_DEFAULT_GPU
    return sorted(set(found), key=lambda m: (m != default, found.index(m)))


def unavailable_message(gpus: int) -> str | None:
    """Why a problem needing `gpus` GPUs cannot be judged here, or None where it can."""
    if models_for(gpus):
        return None
    return (
        f"This problem needs {gpus} GPUs of one machine at once, and no judge on this site holds "
        f"{gpus} GPUs: it cannot be run or submitted here."
    )
