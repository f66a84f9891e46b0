"""Trusted reference for the fused GEMM + bias + GELU (erf form). Runs only in the trusted process."""

from __future__ import annotations

import math

import torch

_PARAM_SALT = 0x5A17_000F


def generate_inputs(seed: int, device: str = "cpu", *, m: int, n: int, k: int) -> dict[str, torch.Tensor]:
    """a = sa * N(0, 1) + small offset; b = (sb * N(0, 1) + small offset) / sqrt(k), so that the
    pre-activation z = a @ b + bias has a standard deviation of sa * sb (0.25 to 4) at every k,
    like a trained layer's: most of z lies where GELU bends, not where it is the identity or 0.
    bias = N(0, 1) * sbias + an offset of up to half a unit. All three are rounded to bf16.
    The offsets stay small (<= 0.1 scale) for the reason matmul's do: a large common offset would
    hide a low-precision accumulator behind one big shared term."""
    gen_params = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    sa, sb = torch.empty(2, dtype=torch.float64).uniform_(0.5, 2.0, generator=gen_params).tolist()
    oa, ob = torch.empty(2, dtype=torch.float64).uniform_(-0.1, 0.1, generator=gen_params).tolist()
    sbias = float(torch.empty(1, dtype=torch.float64).uniform_(0.25, 1.5, generator=gen_params))
    obias = float(torch.empty(1, dtype=torch.float64).uniform_(-0.5, 0.5, generator=gen_params))
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    a = torch.randn(m, k, generator=gen, device=device).mul_(sa).add_(oa * sa)
    b = torch.randn(k, n, generator=gen, device=device).mul_(sb / math.sqrt(k)).add_(ob * sb / math.sqrt(k))
    bias = torch.randn(n, generator=gen, device=device).mul_(sbias).add_(obias)
    return {"a": a.to(torch.bfloat16), "b": b.to(torch.bfloat16), "bias": bias.to(torch.bfloat16)}


def gelu(z: torch.Tensor) -> torch.Tensor:
    """GELU in its exact (erf) form: z * Phi(z) = z / 2 * (1 + erf(z / sqrt(2)))."""
    return 0.5 * z * (1.0 + torch.erf(z * (1.0 / math.sqrt(2.0))))


def reference(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor, m: int, n: int, k: int) -> dict[str, torch.Tensor]:
    """Exact products of the bf16 inputs summed in fp64, plus the bias, through GELU in fp64."""
    return {"c": gelu(a.double() @ b.double() + bias.double())}


def baseline(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor, m: int, n: int, k: int) -> dict[str, torch.Tensor]:
    """Plain PyTorch in bf16, unfused (a Linear layer then its activation): the point a
    submission's speedup is measured from."""
    return {"c": torch.nn.functional.gelu(torch.addmm(bias, a, b))}
