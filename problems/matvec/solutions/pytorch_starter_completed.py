"""Accepted: the PyTorch starter completed as its comment says: w @ x on fp32 copies (fp32
accumulation), written into y."""

import torch


def solve(w: torch.Tensor, x: torch.Tensor, y: torch.Tensor, m: int, k: int) -> None:
    y.copy_(w.float() @ x.float())
