"""Trusted reference for the decode-shaped GEMM c = a @ w^T (bf16 in, fp32 accumulate, bf16 out).

Runs only in the trusted process. Layouts (contiguous, row-major):
  a  bf16 [m, k]   the activations of m tokens (1 <= m <= 64)
  w  bf16 [n, k]   the weight as a linear layer stores it: one row per output feature
  c  bf16 [m, n]   c[i, j] = sum_p a[i, p] * w[j, p]
"""

from __future__ import annotations

import torch

_PARAM_SALT = 0x5A17_0010
_CHUNK = 1 << 26  # elements drawn or widened at a time (no fp32/fp64 copy of a 470 MiB weight)


def generate_inputs(seed: int, device: str = "cpu", *, m: int, n: int, k: int) -> dict[str, torch.Tensor]:
    """a, w = scale * N(0, 1) + offset in bf16, scale in [0.5, 2], |offset| <= 0.1 scale.

    As for matmul, the common offsets stay small: a large one would make every output about
    k * offset_a * offset_w and hide a low-precision kernel's errors behind one shared term.
    """
    gen_params = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    scale = torch.empty(2, dtype=torch.float64).uniform_(0.5, 2.0, generator=gen_params).tolist()
    offset = torch.empty(2, dtype=torch.float64).uniform_(-0.1, 0.1, generator=gen_params).tolist()
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    a = torch.randn(m, k, generator=gen, device=device).mul_(scale[0]).add_(offset[0] * scale[0])
    w = torch.empty(n, k, dtype=torch.bfloat16, device=device)
    flat = w.view(-1)
    for start in range(0, flat.numel(), _CHUNK):
        part = torch.randn(min(_CHUNK, flat.numel() - start), generator=gen, device=device)
        flat[start : start + part.numel()] = part.mul_(scale[1]).add_(offset[1] * scale[1])
    return {"a": a.to(torch.bfloat16), "w": w}


def reference(a: torch.Tensor, w: torch.Tensor, m: int, n: int, k: int) -> dict[str, torch.Tensor]:
    """The exact products of the bf16 inputs summed in float64, a block of weight rows at a time."""
    a64 = a.double()
    rows = max(1, _CHUNK // max(k, 1))
    return {"c": torch.cat([a64 @ w[r : r + rows].double().T for r in range(0, n, rows)], dim=1)}


def baseline(a: torch.Tensor, w: torch.Tensor, m: int, n: int, k: int) -> dict[str, torch.Tensor]:
    """Plain PyTorch: the vendor GEMM on the bf16 tensors (fp32 accumulation, one rounding), as a
    linear layer runs it. The point a submission's speedup is measured from."""
    return {"c": torch.nn.functional.linear(a, w)}
