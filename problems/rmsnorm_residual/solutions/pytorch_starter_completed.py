"""Accepted: the PyTorch starter completed as its comment says, in the tensors' own bf16:
h = x + residual, then y = rms_norm(h) * weight with the starter's EPS."""

import torch

EPS = 1e-6


def solve(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, h: torch.Tensor, y: torch.Tensor, m: int, n: int
) -> None:
    h.copy_(x + residual)
    y.copy_(torch.nn.functional.rms_norm(h, (n,), weight, eps=EPS))
