"""ncu mode: one call of the first benchmark shape between cudaProfilerStart/Stop, in a child
started under Nsight Compute (parent/profile.py)."""

from __future__ import annotations

import importlib
import time

import torch

from judge.harness import languages
from judge.harness.child.channel import Channel
from judge.harness.child.runner import Runner
from judge.harness.child.timing import L2Flusher
from judge.harness.common.child_job import ChildJob


def run_for_ncu(job: ChildJob, channel: Channel) -> None:
    runner = Runner(job, channel)
    imported = {name: importlib.import_module(name) for name in languages.get(job.language).child_imports}
    runner.submission.cupy = imported.get("cupy")
    runner.flusher = L2Flusher("cuda")
    runner.submission.load()
    shape = job.benchmarks[0]
    inputs = runner.make_inputs(shape.pool_seeds[0], shape.sizes, shape.shapes)
    outputs = runner.make_outputs(shape.shapes)
    call = runner.submission.bind(inputs, outputs, [shape.sizes[n] for n in runner.sizes_names])
    previous = None
    began = time.monotonic()
    for _ in range(20):  # warm-up: compile and autotune outside the profiled range
        runner.poison(outputs)
        t0 = time.perf_counter()
        call()
        torch.cuda.synchronize()
        elapsed = time.perf_counter() - t0
        if (previous is not None and abs(elapsed - previous) < 0.05 * previous) or time.monotonic() - began > 20:
            break
        previous = elapsed
    runner.poison(outputs)
    runner.flusher.flush()
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    call()
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()
