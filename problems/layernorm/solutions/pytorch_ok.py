"""Accepted: torch.nn.functional.layer_norm, copied into the output."""

import torch

EPS = 1e-5


def solve(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    y.copy_(torch.nn.functional.layer_norm(x, (n,), weight, bias, EPS))
