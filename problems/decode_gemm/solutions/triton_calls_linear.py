"""Rejected: a Triton submission that lets the vendor GEMM do the work through
torch.nn.functional.linear (forbidden in the source: a kernel is asked for)."""

import torch


def solve(a: torch.Tensor, w: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    c.copy_(torch.nn.functional.linear(a, w))
