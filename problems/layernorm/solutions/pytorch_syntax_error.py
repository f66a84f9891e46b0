"""Compile error: an assignment where an argument belongs (a Python syntax error)."""

import torch


def solve(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    y.copy_(torch.nn.functional.layer_norm(x, (n,), weight, bias, eps = = 1e-5))
