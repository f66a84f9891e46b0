"""Rejected: a Triton submission that lets torch.nn.functional.rms_norm normalise (forbidden in
the source)."""

import torch


def solve(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, h: torch.Tensor, y: torch.Tensor, m: int, n: int
) -> None:
    s = x.float() + residual.float()
    h.copy_(s)
    y.copy_(torch.nn.functional.rms_norm(s, (n,), weight.float(), 1e-6))
