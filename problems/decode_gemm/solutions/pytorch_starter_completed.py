"""Accepted: the PyTorch starter completed as its comment says: fp32 copies of a and w, their
product a @ w.T (fp32 accumulation), copied into c (rounded to bf16 once)."""

import torch


def solve(a: torch.Tensor, w: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    c.copy_(a.float() @ w.float().T)
