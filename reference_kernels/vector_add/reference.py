"""Trusted reference for vector_add. Runs only in the judge's trusted process."""

from __future__ import annotations

import torch


def generate_inputs(seed: int, n: int, device: str = "cpu") -> dict[str, torch.Tensor]:
    """Full-entropy values with a random offset and scale per case; never zeros."""
    gen = torch.Generator(device=device).manual_seed(seed)
    scale = torch.empty(2).uniform_(0.5, 4.0, generator=torch.Generator().manual_seed(seed)).tolist()
    offset = torch.empty(2).uniform_(-2.0, 2.0, generator=torch.Generator().manual_seed(seed + 1)).tolist()
    a = torch.randn(n, generator=gen, device=device) * scale[0] + offset[0]
    b = torch.randn(n, generator=gen, device=device) * scale[1] + offset[1]
    return {"a": a, "b": b}


def reference(a: torch.Tensor, b: torch.Tensor, n: int) -> dict[str, torch.Tensor]:
    return {"c": (a.double() + b.double())}
