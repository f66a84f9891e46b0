"""Rejected: a Triton submission that lets torch.mv do the work (forbidden in the source)."""

import torch


def solve(w: torch.Tensor, x: torch.Tensor, y: torch.Tensor, m: int, k: int) -> None:
    torch.mv(w.float(), x.float(), out=y)
