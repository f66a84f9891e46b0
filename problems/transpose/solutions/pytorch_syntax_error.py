"""Compile error: the def line lacks its colon (a Python syntax error)."""

import torch


def solve(x: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None
    y.copy_(x.t())
