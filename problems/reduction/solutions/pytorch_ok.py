"""Accepted: PyTorch's own reduction, written into the output tensor."""

import torch


def solve(x: torch.Tensor, out: torch.Tensor, n: int) -> None:
    torch.sum(x, dim=0, keepdim=True, out=out)
