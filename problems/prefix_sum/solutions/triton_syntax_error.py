"""Compile error: a missing closing parenthesis (a Python syntax error)."""

import torch
import triton


def solve(x: torch.Tensor, y: torch.Tensor, n: int) -> None:
    tiles = triton.cdiv(n, 1024
