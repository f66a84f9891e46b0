"""Compile error: a missing closing bracket (a Python syntax error)."""

import torch


def solve(a: torch.Tensor, w: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    c.copy_(a.float() @ w.float().T
