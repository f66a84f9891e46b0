"""Compile error: a keyword where an expression belongs (a Python syntax error)."""

import torch


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    torch.matmul(a, b, out=return)
