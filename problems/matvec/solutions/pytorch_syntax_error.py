"""Compile error: an unclosed call (a Python syntax error)."""

import torch


def solve(w: torch.Tensor, x: torch.Tensor, y: torch.Tensor, m: int, k: int) -> None:
    torch.mv(w.float(), x.float(), out=y
