"""Accepted: the PyTorch starter completed as its comment says: x.sum() written into out[0]."""

import torch


def solve(x: torch.Tensor, out: torch.Tensor, n: int) -> None:
    out[0] = x.sum()
