"""Accepted: the PyTorch starter completed as its comment says: x.T written into y."""

import torch


def solve(x: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    y.copy_(x.T)
