"""Accepted: the PyTorch starter completed as its comment says: torch.softmax over each row,
written into y."""

import torch


def solve(x: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    y.copy_(torch.softmax(x, dim=1))
