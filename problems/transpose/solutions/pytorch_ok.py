"""Accepted: PyTorch's strided copy into the output."""

import torch


def solve(x: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    y.copy_(x.t())
