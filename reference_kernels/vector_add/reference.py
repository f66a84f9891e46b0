"""Trusted reference for vector_add. Runs only in the judge's trusted process."""

from __future__ import annotations

import torch

_PARAM_SALT = 0x5A17_0001


def _case_params(seed: int, count: int) -> list[tuple[float, float]]:
    """(scale, offset) per input, drawn on the CPU so they do not depend on the device."""
    gen = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    scale = torch.empty(count, dtype=torch.float64).uniform_(0.5, 4.0, generator=gen)
    offset = torch.empty(count, dtype=torch.float64).uniform_(-2.0, 2.0, generator=gen)
    return list(zip(scale.tolist(), offset.tolist(), strict=True))


def generate_inputs(seed: int, device: str = "cpu", *, n: int) -> dict[str, torch.Tensor]:
    """Full-entropy fp32 values with a random offset and scale per input; never zeros.

    Deterministic for (seed, device): the same seed on another device may give other values.
    """
    params = _case_params(seed, 2)
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    out = {}
    for name, (scale, offset) in zip(("a", "b"), params, strict=True):
        out[name] = torch.randn(n, generator=gen, device=device).mul_(scale).add_(offset)
    return out


def reference(a: torch.Tensor, b: torch.Tensor, n: int) -> dict[str, torch.Tensor]:
    return {"c": a.double() + b.double()}


def baseline(a: torch.Tensor, b: torch.Tensor, n: int) -> dict[str, torch.Tensor]:
    """Plain PyTorch, in the output dtype: the point a submission's speedup is measured from."""
    return {"c": torch.add(a, b)}
