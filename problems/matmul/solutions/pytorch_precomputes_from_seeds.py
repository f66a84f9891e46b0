"""Rejected, or judged at its honest time: precomputes every benchmark output before the timing.
Its process was given the seeds of every input set it would ever see (and the input generator),
so on its first call it generates them all, computes their products, and keys them by a few
input values; a timed call then only copies the stored product.

Against a judge that hands the child its seeds, the timed calls were a copy of 32 KiB (several
times faster than the honest matmul). The judge now writes each call's inputs itself, right
before the call, and the child holds no seed: there is nothing to precompute, and the file falls
back to computing (it prints what it found).
"""

import gc
import sys

import torch

TABLE: dict[tuple[float, ...], torch.Tensor] = {}
_tried = False


def _key(a: torch.Tensor, b: torch.Tensor) -> tuple[float, ...]:
    return tuple(a.reshape(-1)[:8].float().tolist() + b.reshape(-1)[:8].float().tolist())


def _precompute() -> None:
    runner = next((o for o in gc.get_objects() if type(o).__name__ == "Runner"), None)
    shapes = getattr(runner.job, "benchmarks", []) if runner is not None else []
    module = sys.modules[type(runner).__module__] if runner is not None else None
    fresh_seed = getattr(module, "fresh_seed", None)
    for shape in shapes:
        seeds = list(getattr(shape, "pool_seeds", None) or [])
        key = getattr(shape, "fresh_key", None)
        if key is not None and fresh_seed is not None:
            seeds += [fresh_seed(key, i) for i in range(len(seeds), 200)]
        for seed in seeds:
            made = runner.make_inputs(seed, shape.sizes, shape.shapes)
            a, b = made
            TABLE[_key(a, b)] = torch.matmul(a, b)
    print(f"precomputed {len(TABLE)} products from the seeds in the job", flush=True)


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    global _tried
    if not _tried:
        _tried = True
        _precompute()
    stored = TABLE.get(_key(a, b))
    if stored is not None:
        c.copy_(stored)
    else:
        torch.matmul(a, b, out=c)
