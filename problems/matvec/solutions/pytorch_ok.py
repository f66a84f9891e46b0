"""Accepted: torch.mv on fp32 copies of w and x, written into the output."""

import torch


def solve(w: torch.Tensor, x: torch.Tensor, y: torch.Tensor, m: int, k: int) -> None:
    torch.mv(w.float(), x.float(), out=y)
