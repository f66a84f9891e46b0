"""Trusted reference for the fused residual add + RMSNorm. Runs only in the trusted process."""

from __future__ import annotations

import torch

_PARAM_SALT = 0x5A17_000D
EPS = 1e-6


def generate_inputs(seed: int, device: str = "cpu", *, m: int, n: int) -> dict[str, torch.Tensor]:
    """x (a layer's output) and residual (the stream) = scale * N(0, 1) + small offset, in bf16,
    the residual a few times larger (as deep in a network); weight around 1."""
    gen_params = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    sx, sr = (float(v) for v in torch.empty(2, dtype=torch.float64).uniform_(0.25, 4.0, generator=gen_params))
    ox, orr = (float(v) for v in torch.empty(2, dtype=torch.float64).uniform_(-0.5, 0.5, generator=gen_params))
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    x = torch.randn(m, n, generator=gen, device=device).mul_(sx).add_(ox * sx).to(torch.bfloat16)
    residual = torch.randn(m, n, generator=gen, device=device).mul_(3 * sr).add_(orr * sr).to(torch.bfloat16)
    weight = torch.randn(n, generator=gen, device=device).mul_(0.2).add_(1.0).to(torch.bfloat16)
    return {"x": x, "residual": residual, "weight": weight}


def reference(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, m: int, n: int) -> dict[str, torch.Tensor]:
    h = x.double() + residual.double()
    rstd = torch.rsqrt(h.square().mean(dim=1, keepdim=True) + EPS)
    return {"h": h, "y": h * rstd * weight.double()}


def baseline(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, m: int, n: int) -> dict[str, torch.Tensor]:
    """Plain PyTorch in the output dtypes (the unfused composition a model would run): the point
    a submission's speedup is measured from."""
    h = x.float() + residual.float()
    y = h * torch.rsqrt(h.square().mean(dim=1, keepdim=True) + EPS) * weight.float()
    return {"h": h.to(torch.bfloat16), "y": y.to(torch.bfloat16)}
