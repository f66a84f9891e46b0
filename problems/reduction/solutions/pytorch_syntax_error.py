"""Compile error: unbalanced parentheses (a Python syntax error)."""

import torch


def solve(x: torch.Tensor, out: torch.Tensor, n: int) -> None:
    out.copy_((x.double().sum().reshape(1).float())
