"""Accepted: the unfused composition in fp32, copied into both outputs."""

import torch

EPS = 1e-6


def solve(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, h: torch.Tensor, y: torch.Tensor, m: int, n: int
) -> None:
    s = x.float() + residual.float()
    h.copy_(s)
    y.copy_(s * torch.rsqrt(s.square().mean(dim=1, keepdim=True) + EPS) * weight.float())
