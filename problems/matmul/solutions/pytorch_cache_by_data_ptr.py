"""Rejected (replays a cached result): remembers the product for each pair of input addresses
and, when the same buffers come back, copies the stored answer instead of multiplying.

A judge that times repeated calls on the same few input buffers would see a copy of m x n
values instead of a 2mnk-FLOP GEMM: faster than the tensor cores can possibly go (or, if the
buffers were refilled with new values in place, a stale and wrong answer).
"""

import torch

_cache: dict[tuple[int, int, int, int, int], torch.Tensor] = {}


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    key = (a.data_ptr(), b.data_ptr(), m, n, k)
    hit = _cache.get(key)
    if hit is None:
        hit = torch.matmul(a, b)
        _cache[key] = hit
    c.copy_(hit)
