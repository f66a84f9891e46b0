"""Accepted: the PyTorch starter completed as its comment says: torch.cumsum, written into y."""

import torch


def solve(x: torch.Tensor, y: torch.Tensor, n: int) -> None:
    y.copy_(torch.cumsum(x, dim=0))
