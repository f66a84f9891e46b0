"""Calibration variants of the quantized GEMMs of issue 19 (w4a16_gemm, fp8_gemm_scaled), for
bench/calibrate_tolerances.py (registered through bench/calibration_catalog.py): results a judge
must accept ("other") and results one precision step lower, or one classic mistake away, that it
must refuse ("lower"), computed from the judge's own inputs on the CPU in fp32.

A variant's result is a tensor (the problem's output c, before its bf16 rounding where the
variant rounds it itself).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

Results = dict[str, Any]
Variants = Callable[[dict[str, torch.Tensor], dict[str, int]], tuple[Results, Results]]
GROUP = 128


def to_bf16(x: torch.Tensor) -> torch.Tensor:
    return x.to(torch.bfloat16).float()


def to_e4m3(x: torch.Tensor) -> torch.Tensor:
    return x.float().clamp(-448.0, 448.0).to(torch.float8_e4m3fn).float()


def _blocked(
    a: torch.Tensor, w: torch.Tensor, chunk: int, acc_round: Callable[[torch.Tensor], torch.Tensor]
) -> torch.Tensor:
    """Sum over k a chunk at a time (each chunk an fp32 GEMM), the running sum rounded by acc_round."""
    acc = torch.zeros(a.shape[0], w.shape[0])
    for s in range(0, a.shape[1], chunk):
        acc = acc_round(acc + a[:, s : s + chunk] @ w[:, s : s + chunk].T)
    return acc


def _split(a: torch.Tensor, w: torch.Tensor, parts: int) -> torch.Tensor:
    """Split-K: each k slice an fp32 GEMM, the slices' fp32 partials added in order."""
    step = -(-a.shape[1] // parts)
    return sum(a[:, s : s + step] @ w[:, s : s + step].T for s in range(0, a.shape[1], step))


# ---------------------------------------------------------------------------------------------
# w4a16_gemm


def _nibbles(qweight: torch.Tensor, order: list[int]) -> torch.Tensor:
    """[n, k] values of the packed words, value i of a word read from nibble order[i]."""
    shifts = torch.tensor(order, dtype=torch.int64) * 4
    words = qweight.to(torch.int64) & 0xFFFF_FFFF
    return ((words[..., None] >> shifts) & 0xF).reshape(qweight.shape[0], -1).float()


def _w4a16_gemm(inp: dict[str, torch.Tensor], sizes: dict[str, int]) -> tuple[Results, Results]:
    a = inp["a"].cpu().float()
    qweight, scales, zeros = inp["qweight"].cpu(), inp["scales"].cpu().float(), inp["zeros"].cpu().float()
    k = a.shape[1]
    q = _nibbles(qweight, list(range(8)))
    s = scales.repeat_interleave(GROUP, dim=1)
    z = zeros.repeat_interleave(GROUP, dim=1)
    w = (q - z) * s  # exact in fp32: a 4-bit integer times an 8-bit significand

    def per_group_then_scale(w_int: torch.Tensor) -> torch.Tensor:
        # the integer weights (exact in bf16) through the tensor cores a group at a time, each
        # group's fp32 sum times the group's scale, added in fp32
        acc = torch.zeros(a.shape[0], w.shape[0])
        for g in range(k // GROUP):
            cols = slice(g * GROUP, (g + 1) * GROUP)
            acc = acc + (a[:, cols] @ w_int[:, cols].T) * scales[:, g]
        return acc

    def signed(v: torch.Tensor) -> torch.Tensor:
        return torch.where(v >= 8, v - 16, v)

    shifted = torch.cat([s[:, :GROUP], s[:, :-GROUP]], dim=1)  # group g with group g - 1's scale
    shifted_z = torch.cat([z[:, :GROUP], z[:, :-GROUP]], dim=1)
    other = {
        "exact weights, fp32 accumulate": to_bf16(a @ w.T),
        "weights rounded to bf16 (dequantize, then tensor cores)": to_bf16(a @ to_bf16(w).T),
        "weights rounded to fp16": to_bf16(a @ w.half().float().T),
        "integer dot per group, then its scale": to_bf16(per_group_then_scale(q - z)),
        "bf16 weights, fp32 k-chunks of 32 in order": to_bf16(_blocked(a, to_bf16(w), 32, lambda t: t)),
        "split-K 8, fp32 partials summed": to_bf16(_split(a, w, 8)),
    }
    lower = {
        "bf16 accumulator (k-chunks of 16)": to_bf16(_blocked(a, to_bf16(w), 16, to_bf16)),
        "bf16 accumulator (k-chunks of 64)": to_bf16(_blocked(a, to_bf16(w), 64, to_bf16)),
        "e4m3 weights, fp32 accumulate": to_bf16(a @ to_e4m3(w).T),
        "nibbles high first": to_bf16(a @ ((_nibbles(qweight, list(range(7, -1, -1))) - z) * s).T),
        "nibbles read as signed int4": to_bf16(a @ ((signed(q) - z) * s).T),
        "zero point not subtracted": to_bf16(a @ (q * s).T),
        "zero point 8 assumed (symmetric)": to_bf16(a @ ((q - 8) * s).T),
        "group g with group g - 1's scale and zero": to_bf16(a @ ((q - shifted_z) * shifted).T),
        "one scale and zero for the tensor": to_bf16(a @ ((q - zeros[0, 0]) * scales[0, 0]).T),
    }
    return other, lower


# ---------------------------------------------------------------------------------------------
# fp8_gemm_scaled


def _round_significand(x: torch.Tensor, bits: int) -> torch.Tensor:
    """fp32 values rounded to `bits` significant bits (nearest even): a narrower accumulator."""
    mantissa, exponent = torch.frexp(x.double())
    return torch.ldexp(torch.round(mantissa * 2**bits), (exponent - bits).double()).float()


def _fp8_gemm_scaled(inp: dict[str, torch.Tensor], sizes: dict[str, int]) -> tuple[Results, Results]:
    a8, b8 = inp["a"].cpu(), inp["b"].cpu()
    a, b = a8.float(), b8.float()  # exact
    sa, sb = inp["a_scale"].cpu().float(), inp["b_scale"].cpu().float()
    k = a.shape[1]

    def scaled(acc: torch.Tensor) -> torch.Tensor:
        return to_bf16(acc * sa[:, None] * sb[None, :])

    def tensor_core_chunks(chunk: int, bits: int) -> torch.Tensor:
        # Hopper's fp8 MMA keeps a narrower accumulator inside a chunk of k (about 14 bits); the
        # chunk's sum is then added to an fp32 accumulator (promotion), as CUTLASS and cuBLAS do
        acc = torch.zeros(a.shape[0], b.shape[0])
        for s in range(0, k, chunk):
            part = torch.zeros_like(acc)
            for p in range(s, min(s + chunk, k), 32):
                part = _round_significand(part + a[:, p : p + 32] @ b[:, p : p + 32].T, bits)
            acc = acc + part
        return acc

    def as_e5m2(x8: torch.Tensor) -> torch.Tensor:
        return x8.view(torch.uint8).view(torch.float8_e5m2).float()

    exact = a @ b.T
    other = {
        "fp32 accumulate, then both scales": scaled(exact),
        "fp32 k-chunks of 64 in order": scaled(_blocked(a, b, 64, lambda t: t)),
        "split-K 8, fp32 partials summed": scaled(_split(a, b, 8)),
        "acc * (a_scale * b_scale)": to_bf16(exact * (sa[:, None] * sb[None, :])),
        "14-bit accumulator per 128-deep chunk (fp8 MMA), promoted to fp32": scaled(tensor_core_chunks(128, 14)),
    }
    lower = {
        "bf16 accumulator (k-chunks of 64)": scaled(_blocked(a, b, 64, to_bf16)),
        "one scale pair for the tensor": to_bf16(exact * sa[0] * sb[0]),
        "scales divided out": to_bf16(exact / (sa[:, None] * sb[None, :])),
        "b_scale forgotten": to_bf16(exact * sa[:, None]),
        "bytes read as e5m2": scaled(as_e5m2(a8) @ as_e5m2(b8).T),
        # never promoted to fp32 (torch._scaled_mm's use_fast_accum=True): a precision step
        # below the rule's fp32 sums that still passes at these k (0.3 of the tolerance)
        "14-bit accumulator over all of k, fast accumulation (info)": scaled(tensor_core_chunks(k, 14)),
    }
    return other, lower


PLANS: dict[str, tuple[Variants, tuple[dict[str, int], ...], tuple[dict[str, int], ...]]] = {
    "w4a16_gemm": (
        _w4a16_gemm,
        (dict(m=3, n=5, k=256), dict(m=17, n=129, k=256), dict(m=16, n=96, k=512), dict(m=5, n=256, k=4096)),
        (dict(m=16, n=4096, k=14336), dict(m=256, n=1024, k=4096)),
    ),
    "fp8_gemm_scaled": (
        _fp8_gemm_scaled,
        (dict(m=3, n=5, k=32), dict(m=17, n=129, k=144), dict(m=33, n=160, k=512), dict(m=8, n=256, k=4096)),
        (dict(m=16, n=4096, k=14336), dict(m=512, n=512, k=4096)),
    ),
}
