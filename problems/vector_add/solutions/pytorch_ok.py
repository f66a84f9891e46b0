"""Accepted: PyTorch may use anything; the sum goes straight into the judge's output tensor."""

import torch


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, n: int) -> None:
    torch.add(a, b, out=c)
