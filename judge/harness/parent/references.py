"""The trusted references: each problem's reference module, the expected outputs and input
checksums of one input set, and the plain-torch baseline's time (docs/judging.md section 4).
All of it runs in the parent, which never runs submitted code."""

from __future__ import annotations

import importlib.util
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from judge import spec as specmod
from judge.harness.parent.plan import public_benchmark_cases

if TYPE_CHECKING:
    from judge.harness.parent.config import JudgeConfig

log = logging.getLogger("judge.harness")

_reference_modules: dict[tuple[str, str], Any] = {}


def reference_module(spec: specmod.ProblemSpec) -> Any:
    key = (spec.slug, spec.content_hash)
    module = _reference_modules.get(key)
    if module is None:
        path = spec.reference_dir / "reference.py"
        loader_spec = importlib.util.spec_from_file_location(f"gridstride_reference_{spec.slug}", path)
        if loader_spec is None or loader_spec.loader is None:
            raise RuntimeError(f"cannot load {path}")
        module = importlib.util.module_from_spec(loader_spec)
        loader_spec.loader.exec_module(module)
        _reference_modules[key] = module
    return module


@dataclass
class Expected:
    outputs: dict[str, Any]
    checksums: list[str]


def expected_for(spec: specmod.ProblemSpec, seed: int, sizes: dict[str, int], device: str) -> Expected:
    """The reference outputs and input checksums of the input set that `seed` generates."""
    from judge.harness.common.tensors import checksum

    module = reference_module(spec)
    inputs = module.generate_inputs(seed=seed, device=device, **sizes)
    checksums = [checksum(inputs[t.name]) for t in spec.inputs]
    outputs = module.reference(**inputs, **sizes)
    del inputs
    return Expected(outputs=outputs, checksums=checksums)


def time_baselines(
    spec: specmod.ProblemSpec, config: JudgeConfig, before_timing: Callable[[], object] | None = None
) -> None:
    """Median time of the problem's plain-torch baseline per shape, once per worker.
    before_timing is called once, before the first baseline that is timed here (not cached)."""
    module = reference_module(spec)
    baseline = getattr(module, "baseline", None)
    if baseline is None:
        return
    # Public shapes only: a hidden shape's name stands for other sizes in the next job.
    for case in public_benchmark_cases(spec, config):
        key = (spec.slug, spec.ranking_hash, case.name)
        if key in config.baseline_cache:
            continue
        if before_timing is not None:
            before_timing()
            before_timing = None
        try:
            config.baseline_cache[key] = _time_baseline(module, baseline, case, config)
        except Exception:
            log.exception("timing the baseline of %s/%s failed; speedup left empty", spec.slug, case.name)
            config.baseline_cache[key] = None


def _time_baseline(module: Any, baseline: Callable[..., Any], case: specmod.Case, config: JudgeConfig) -> float:
    """Median time of baseline(**inputs, **sizes) on this device, with the submissions' method."""
    from judge.harness.child.timing import L2Flusher, TimingPolicy, time_calls
    from judge.harness.common.stats import summarize

    device = config.device
    sets = [
        module.generate_inputs(seed=1000 + k, device=device, **case.sizes) for k in range(4 if device == "cuda" else 2)
    ]
    policy = config.timing_policy()
    quick = TimingPolicy.from_dict({**policy.as_dict(), "max_seconds": min(policy.max_seconds, 5.0)})
    run = time_calls(
        lambda i: baseline(**sets[i], **case.sizes),
        lambda i: None,
        sets=len(sets),
        policy=quick,
        device=device,
        flusher=L2Flusher(device),
        rng=random.Random(0),
    )
    sets.clear()
    if device == "cuda":
        import torch

        torch.cuda.empty_cache()
    return summarize(run.times_us).median
