"""Accepted: torch.cumsum into the output tensor."""

import torch


def solve(x: torch.Tensor, y: torch.Tensor, n: int) -> None:
    torch.cumsum(x, dim=0, out=y)
