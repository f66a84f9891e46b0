"""Trusted reference for the scaled fp8 GEMM. Runs only in the trusted process.

Layouts (contiguous, row-major); k is a multiple of 16:
  a        float8_e4m3fn [m, k]   the activations, quantized per row (token)
  b        float8_e4m3fn [n, k]   the weight as a linear layer stores it, quantized per row
                                  (output feature, i.e. per column of c)
  a_scale  float32 [m]            the dequantization scale of each row of a
  b_scale  float32 [n]            the dequantization scale of each row of b
  c        bf16 [m, n]            c[i, j] = a_scale[i] * b_scale[j] * sum_p a[i, p] * b[j, p],
                                  the products exact, summed in fp32 or better, rounded once
"""

from __future__ import annotations

import torch

E4M3_MAX = 448.0
_PARAM_SALT = 0x5A17_0018
_CHUNK = 1 << 24  # elements drawn, quantized or widened to float64 at a time


def quantize_rows(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-row symmetric e4m3 quantization as an fp8 pipeline does it: scale = absmax / 448 in
    fp32 (1 for a row of zeros), values x / scale rounded to e4m3 (to nearest even, saturating)."""
    absmax = x.abs().amax(dim=1)
    scale = torch.where(absmax > 0, absmax / E4M3_MAX, torch.ones_like(absmax))
    q = (x / scale[:, None]).clamp_(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn)
    return q, scale


def _quantized(
    rows: int, k: int, gen: torch.Generator, device: str, spread: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """N(0, 1) rows, each times its own log-uniform factor over [2^-spread, 2^spread] (tokens and
    output channels differ in range, which is why the scales are per row), quantized per row."""
    q = torch.empty(rows, k, dtype=torch.float8_e4m3fn, device=device)
    scale = torch.empty(rows, dtype=torch.float32, device=device)
    step = max(1, _CHUNK // max(k, 1))
    for r in range(0, rows, step):
        count = min(step, rows - r)
        x = torch.randn(count, k, generator=gen, device=device)
        factor = torch.exp2(torch.empty(count, 1, device=device).uniform_(-spread, spread, generator=gen))
        q[r : r + count], scale[r : r + count] = quantize_rows(x * factor)
    return q, scale


def generate_inputs(seed: int, device: str = "cpu", *, m: int, n: int, k: int) -> dict[str, torch.Tensor]:
    """a and b drawn as real data (normal rows of different ranges) and quantized per row to
    e4m3 with fp32 scales, so the e4m3 values span their whole range (subnormals included) and
    every row's scale differs: a kernel that applies the scales per tensor, swaps a's and b's, or
    reads the bytes as another fp8 format changes most outputs."""
    if k % 16:
        raise ValueError(f"k = {k} is not a multiple of 16")
    gen_params = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    spread_a, spread_b = torch.empty(2, dtype=torch.float64).uniform_(2.0, 4.0, generator=gen_params).tolist()
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    a, a_scale = _quantized(m, k, gen, device, spread_a)
    b, b_scale = _quantized(n, k, gen, device, spread_b)
    return {"a": a, "b": b, "a_scale": a_scale, "b_scale": b_scale}


def reference(
    a: torch.Tensor, b: torch.Tensor, a_scale: torch.Tensor, b_scale: torch.Tensor, m: int, n: int, k: int
) -> dict[str, torch.Tensor]:
    """Exact products summed in float64, scaled in float64: a block of rows of b at a time."""
    a64 = a.double()
    rows = max(1, _CHUNK // max(k, 1))
    acc = torch.cat([a64 @ b[r : r + rows].double().T for r in range(0, n, rows)], dim=1)
    return {"c": acc * a_scale.double()[:, None] * b_scale.double()[None, :]}


def baseline(
    a: torch.Tensor, b: torch.Tensor, a_scale: torch.Tensor, b_scale: torch.Tensor, m: int, n: int, k: int
) -> dict[str, torch.Tensor]:
    """The vendor's scaled fp8 GEMM (row-wise scales, bf16 out): the point a submission's speedup
    is measured from. b [n, k] row-major is the column-major [k, n] operand it asks for."""
    c = torch._scaled_mm(a, b.T, scale_a=a_scale[:, None], scale_b=b_scale[None, :], out_dtype=torch.bfloat16)
    return {"c": c}
