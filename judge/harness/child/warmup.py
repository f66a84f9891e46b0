"""What a warm child does before its job arrives, so the job does not pay for it.

A pool process (sandbox.WarmPool) waits for its one job with torch imported and a CUDA context
created. A job then still paid, on its own clock, for importing Triton, for Triton's first
compilation (loading its compiler back end), for the profiler's first session (CUPTI) that the
kernel-list check opens, and for importing CuPy. Running all of them once here, with the judge's
own code before any submitted code is loaded, moves that cost off the job's path.

Each step is best-effort: a failure here is not hidden, only deferred, because the job itself
does the same thing again and reports what goes wrong there.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterator

import torch

from judge.harness.child.triton_cache import SEED_ENV, copy_seed


def warm_up(device: str) -> dict[str, float]:
    """Run the steps for `device`; returns the seconds each completed step took, by name (the
    report shows them: a slow warm-up is what a job right behind another one waits for).

    Quietly: the process's stderr becomes the submission's captured stderr, so a library's
    notice printed here (at the Python or the C level) would show up in every report.
    """
    with _quiet():
        return _steps(device)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


def _steps(device: str) -> dict[str, float]:
    done: dict[str, float] = {}

    def step(name: str, action: Callable[[], object]) -> None:
        began = time.perf_counter()
        with contextlib.suppress(Exception):
            action()
            done[name] = round(time.perf_counter() - began, 3)

    step("import triton", _import_triton)
    if os.environ.get(SEED_ENV) and os.environ.get("TRITON_CACHE_DIR"):  # the worker built a seed
        step("triton cache seeded", lambda: copy_seed(os.environ[SEED_ENV], os.environ["TRITON_CACHE_DIR"]))
    if device != "cuda":
        return done
    step("triton compile", _first_triton_kernel)
    step("profiler", _first_profiler_session)
    step("import cupy", lambda: __import__("cupy"))
    torch.cuda.synchronize()
    return done


def _import_triton() -> None:
    import triton
    import triton.language  # noqa: F401


def _first_triton_kernel() -> None:
    from judge.harness.child.cover_kernel import device_cover_geometry, spin
    from judge.harness.child.warmup_kernel import fill

    x = torch.empty(1024, device="cuda")
    fill[(1,)](x, 1024, 1.0, BLOCK=1024)
    spin[(1,)](1000, num_warps=device_cover_geometry()[1])  # the launch cover's variant, compiled ahead too
    torch.cuda.synchronize()
    if not bool((x == 1.0).all()):
        raise RuntimeError("the warm-up kernel computed the wrong values")


def _first_profiler_session() -> None:
    from torch.profiler import ProfilerActivity, profile

    x = torch.empty(1 << 16, device="cuda")
    torch.cuda.synchronize()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            x.fill_(1.0)
            torch.cuda.synchronize()
    prof.events()  # the trace is processed lazily: pay for that here too
