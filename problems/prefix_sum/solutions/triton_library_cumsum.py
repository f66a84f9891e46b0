"""Rejected: a Triton submission that lets torch.cumsum do the scan (forbidden in the source)."""

import torch


def solve(x: torch.Tensor, y: torch.Tensor, n: int) -> None:
    torch.cumsum(x, dim=0, out=y)
