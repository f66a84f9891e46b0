"""Trusted reference for bf16 matmul with fp32 accumulation. Runs only in the trusted process."""

from __future__ import annotations

import torch

_PARAM_SALT = 0x5A17_0004


def generate_inputs(seed: int, device: str = "cpu", *, m: int, n: int, k: int) -> dict[str, torch.Tensor]:
    """a, b = scale * N(0, 1) + offset rounded to bf16; scale in [0.5, 2], |offset| <= 0.1 scale.

    The offsets stay small: a large common offset would make every output about k * oa * ob and
    hide the errors of a low-precision kernel behind one big shared term.
    """
    gen_params = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    scale = torch.empty(2, dtype=torch.float64).uniform_(0.5, 2.0, generator=gen_params).tolist()
    offset = torch.empty(2, dtype=torch.float64).uniform_(-0.1, 0.1, generator=gen_params).tolist()
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    a = torch.randn(m, k, generator=gen, device=device).mul_(scale[0]).add_(offset[0] * scale[0])
    b = torch.randn(k, n, generator=gen, device=device).mul_(scale[1]).add_(offset[1] * scale[1])
    return {"a": a.to(torch.bfloat16), "b": b.to(torch.bfloat16)}


def reference(a: torch.Tensor, b: torch.Tensor, m: int, n: int, k: int) -> dict[str, torch.Tensor]:
    """Exact products of the bf16 inputs, summed in fp64."""
    return {"c": a.double() @ b.double()}


def baseline(a: torch.Tensor, b: torch.Tensor, m: int, n: int, k: int) -> dict[str, torch.Tensor]:
    """Plain PyTorch (the vendor GEMM), in bf16: the point a submission's speedup is measured from."""
    return {"c": a @ b}
