"""Accepted: the PyTorch starter completed as its comment says: a + b written into c."""

import torch


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, n: int) -> None:
    c.copy_(a + b)
