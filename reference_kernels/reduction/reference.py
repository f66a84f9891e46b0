"""Trusted reference for reduction (sum of a float32 vector). Runs only in the trusted process."""

from __future__ import annotations

import torch

_PARAM_SALT = 0x5A17_0002


def generate_inputs(seed: int, device: str = "cpu", *, n: int) -> dict[str, torch.Tensor]:
    """x = scale * N(0, 1) + offset, with |offset| between 0.5 and 2 times the scale.

    The offset keeps the sum well conditioned (sum|x| / |sum x| stays below about 3), so a
    relative tolerance can tell a correct fp32 kernel from a low-precision one at any n. A sum
    of zero-mean values would have |sum| ~ sqrt(n) and no fp32 kernel could be judged fairly.
    """
    gen_params = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    scale = float(torch.empty(1, dtype=torch.float64).uniform_(0.5, 2.0, generator=gen_params))
    ratio = float(torch.empty(1, dtype=torch.float64).uniform_(0.5, 2.0, generator=gen_params))
    sign = 1.0 if torch.rand(1, generator=gen_params).item() < 0.5 else -1.0
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    x = torch.randn(n, generator=gen, device=device).mul_(scale).add_(sign * ratio * scale)
    return {"x": x}


def reference(x: torch.Tensor, n: int) -> dict[str, torch.Tensor]:
    return {"out": x.double().sum().reshape(1)}


def baseline(x: torch.Tensor, n: int) -> dict[str, torch.Tensor]:
    """Plain PyTorch, in the output dtype: the point a submission's speedup is measured from."""
    return {"out": x.sum().reshape(1)}
