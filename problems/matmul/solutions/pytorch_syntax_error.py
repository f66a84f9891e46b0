"""Compile error: a Python syntax error (an assignment inside a call's keyword list)."""

import torch


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    torch.matmul(a, b, out=c = None)
