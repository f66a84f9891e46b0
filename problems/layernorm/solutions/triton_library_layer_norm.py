"""Rejected: a Triton submission whose work is torch.nn.functional.layer_norm (forbidden in the
source)."""

import torch


def solve(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    y.copy_(torch.nn.functional.layer_norm(x, (n,), weight, bias, 1e-5))
