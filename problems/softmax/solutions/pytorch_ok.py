"""Accepted: PyTorch's softmax, written into the output tensor."""

import torch


def solve(x: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    torch.softmax(x, dim=1, out=y)
