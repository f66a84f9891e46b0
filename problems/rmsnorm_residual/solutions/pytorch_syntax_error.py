"""Compile error: a missing comma between arguments (a Python syntax error)."""

import torch


def solve(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, h: torch.Tensor, y: torch.Tensor, m: int, n: int
) -> None:
    h.copy_(torch.add(x.float() residual.float()))
