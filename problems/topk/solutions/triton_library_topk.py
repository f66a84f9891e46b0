"""Rejected: a Triton submission whose solve() lets torch.topk select (forbidden in the source;
on a GPU host the profiler would also list PyTorch's own kernels)."""

import torch


def solve(x: torch.Tensor, values: torch.Tensor, indices: torch.Tensor, m: int, n: int, k: int) -> None:
    top = torch.topk(x, k, dim=1)
    values.copy_(top.values)
    indices.copy_(top.indices)
