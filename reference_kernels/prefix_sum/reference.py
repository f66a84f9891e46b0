"""Trusted reference for the inclusive prefix sum. Runs only in the trusted process."""

from __future__ import annotations

import torch

_PARAM_SALT = 0x5A17_0009


def generate_inputs(seed: int, device: str = "cpu", *, n: int) -> dict[str, torch.Tensor]:
    """x = scale * N(0, 1) + offset with offset between 1 and 2 scales (either sign).

    The offset makes the running sum drift away from zero (|y_i| grows like i * |offset|), so a
    relative tolerance means the same thing at every position and every n; zero-mean values
    would leave y near zero at random positions, where no fp32 kernel could be judged fairly.
    """
    gen_params = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    scale = float(torch.empty(1, dtype=torch.float64).uniform_(0.5, 2.0, generator=gen_params))
    ratio = float(torch.empty(1, dtype=torch.float64).uniform_(1.0, 2.0, generator=gen_params))
    sign = 1.0 if torch.rand(1, generator=gen_params).item() < 0.5 else -1.0
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    x = torch.randn(n, generator=gen, device=device).mul_(scale).add_(sign * ratio * scale)
    return {"x": x}


def reference(x: torch.Tensor, n: int) -> dict[str, torch.Tensor]:
    return {"y": torch.cumsum(x.double(), dim=0)}


def baseline(x: torch.Tensor, n: int) -> dict[str, torch.Tensor]:
    """Plain PyTorch, in the output dtype: the point a submission's speedup is measured from."""
    return {"y": torch.cumsum(x, dim=0)}
