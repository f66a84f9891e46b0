"""Trusted reference for the matrix transpose. Runs only in the trusted process."""

from __future__ import annotations

import torch

_PARAM_SALT = 0x5A17_0006


def generate_inputs(seed: int, device: str = "cpu", *, m: int, n: int) -> dict[str, torch.Tensor]:
    """x = scale * N(0, 1) + offset: every element a distinct full-precision float, so a value
    written to the wrong place or rounded on the way shows."""
    gen_params = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    scale = float(torch.empty(1, dtype=torch.float64).uniform_(0.5, 4.0, generator=gen_params))
    offset = float(torch.empty(1, dtype=torch.float64).uniform_(-10.0, 10.0, generator=gen_params))
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    x = torch.randn(m, n, generator=gen, device=device).mul_(scale).add_(offset)
    return {"x": x}


def reference(x: torch.Tensor, m: int, n: int) -> dict[str, torch.Tensor]:
    return {"y": x.double().t().contiguous()}


def baseline(x: torch.Tensor, m: int, n: int) -> dict[str, torch.Tensor]:
    """Plain PyTorch, in the output dtype: the point a submission's speedup is measured from."""
    return {"y": x.t().contiguous()}
