"""Trusted reference for the layer normalization forward pass. Runs only in the trusted process."""

from __future__ import annotations

import torch

_PARAM_SALT = 0x5A17_000C
EPS = 1e-5


def generate_inputs(seed: int, device: str = "cpu", *, m: int, n: int) -> dict[str, torch.Tensor]:
    """x = scale * N(0, 1) + offset per row, every row's offset 8 to 36 scales from zero
    (activations with a large common component are common); weight around 1, bias around 0.

    The offset is what separates a careful variance from E[x^2] - E[x]^2 in fp32: with the mean
    that far from zero the two terms share their leading 6-10 bits and the difference loses them."""
    gen_params = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    scale = float(torch.empty(1, dtype=torch.float64).uniform_(0.5, 4.0, generator=gen_params))
    offset = float(torch.empty(1, dtype=torch.float64).uniform_(10.0, 30.0, generator=gen_params))
    sign = 1.0 if torch.rand(1, generator=gen_params).item() < 0.5 else -1.0
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    row_offsets = torch.rand(m, 1, generator=gen, device=device).mul_(0.4).add_(0.8).mul_(sign * offset * scale)
    x = torch.randn(m, n, generator=gen, device=device).mul_(scale).add_(row_offsets)
    weight = torch.randn(n, generator=gen, device=device).mul_(0.2).add_(1.0)
    bias = torch.randn(n, generator=gen, device=device).mul_(0.5)
    return {"x": x, "weight": weight, "bias": bias}


def reference(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, m: int, n: int) -> dict[str, torch.Tensor]:
    x64 = x.double()
    mean = x64.mean(dim=1, keepdim=True)
    var = (x64 - mean).square().mean(dim=1, keepdim=True)
    return {"y": (x64 - mean) / torch.sqrt(var + EPS) * weight.double() + bias.double()}


def baseline(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, m: int, n: int) -> dict[str, torch.Tensor]:
    """Plain PyTorch, in the output dtype: the point a submission's speedup is measured from."""
    return {"y": torch.nn.functional.layer_norm(x, (n,), weight, bias, EPS)}
