"""Trusted reference for the fp32 matrix multiplication on CUDA cores. Runs only in the trusted
process."""

from __future__ import annotations

import torch

_PARAM_SALT = 0x5A17_000A


def generate_inputs(seed: int, device: str = "cpu", *, m: int, n: int, k: int) -> dict[str, torch.Tensor]:
    """a, b = scale * N(0, 1) + offset, with a small common offset (at most 0.1 scale).

    A large offset would make every output about k * offset_a * offset_b and hide the error of a
    low-precision kernel behind one shared term (docs/tolerances.md, matmul)."""
    gen_params = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    sa, sb = (float(v) for v in torch.empty(2, dtype=torch.float64).uniform_(0.5, 2.0, generator=gen_params))
    oa, ob = (float(v) for v in torch.empty(2, dtype=torch.float64).uniform_(-0.1, 0.1, generator=gen_params))
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    a = torch.randn(m, k, generator=gen, device=device).mul_(sa).add_(oa * sa)
    b = torch.randn(k, n, generator=gen, device=device).mul_(sb).add_(ob * sb)
    return {"a": a, "b": b}


def reference(a: torch.Tensor, b: torch.Tensor, m: int, n: int, k: int) -> dict[str, torch.Tensor]:
    return {"c": a.double() @ b.double()}


def baseline(a: torch.Tensor, b: torch.Tensor, m: int, n: int, k: int) -> dict[str, torch.Tensor]:
    """Plain PyTorch in fp32 on CUDA cores (TensorFloat-32 off, PyTorch's default for matmul): the point a
    submission's speedup is measured from."""
    return {"c": torch.matmul(a, b)}
