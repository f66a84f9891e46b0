"""Trusted reference for the W4A16 GEMM c = a @ dequant(qweight)^T. Runs only in the trusted process.

Layouts (contiguous, row-major); k is a multiple of GROUP = 128, groups = k // 128:
  a        bf16  [m, k]          the activations of m tokens
  qweight  int32 [n, k // 8]     unsigned 4-bit weights, eight to a word along k: element (j, p)
                                 is bits 4 * (p % 8) .. 4 * (p % 8) + 3 of qweight[j, p // 8]
                                 (nibble 0, the lowest four bits, holds the lowest k)
  scales   bf16  [n, groups]     one scale per output feature and group of 128 consecutive k
  zeros    uint8 [n, groups]     one zero point per output feature and group, in [0, 15]
  c        bf16  [m, n]          c[i, j] = sum_p a[i, p] * (q[j, p] - zeros[j, g]) * scales[j, g],
                                 g = p // 128, summed in fp32 or better, rounded once to bf16
"""

from __future__ import annotations

import torch

GROUP = 128
NIBBLES = 8  # 4-bit values per int32 word
_PARAM_SALT = 0x5A17_0017
SCALE_BITS = 4  # significant bits of every scale the generator draws
# Inputs drawn from few values on purpose (tests/judge/test_problem_content.py): 4-bit scales
# take 8 values per octave, 33 over the factor of 16 drawn.
FEW_VALUES = ("scales",)
_CHUNK = 1 << 24  # weight elements unpacked or widened to float64 at a time


def generate_inputs(seed: int, device: str = "cpu", *, m: int, n: int, k: int) -> dict[str, torch.Tensor]:
    """a = N(0, 1) * scale + offset in bf16; q uniform in [0, 15]; zeros uniform in [0, 15] (both
    ends included, so a kernel that reads a nibble or a zero as signed is seen); scales
    log-uniform over a factor of 16 around the scale a quantizer gives LLM weights (~1e-2), with
    SCALE_BITS significant bits: then every (q - zero) * scale (at most 4 + 4 bits) is exact in
    bf16 and fp16, so dequantizing to bf16 for the tensor cores loses nothing and every correct
    kernel multiplies the same exact products; only the order of the fp32 sums and the final
    rounding differ, and the tolerance can be as tight as a bf16 GEMM's. Every group has its own
    scale and zero, so a scale or zero taken from the wrong group, row or the first one changes
    most outputs."""
    if k % GROUP:
        raise ValueError(f"k = {k} is not a multiple of the group size {GROUP}")
    groups = k // GROUP
    gen_params = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    a_scale, a_offset, s_center = torch.empty(3, dtype=torch.float64).uniform_(0.5, 2.0, generator=gen_params).tolist()
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    a = torch.randn(m, k, generator=gen, device=device).mul_(a_scale).add_(0.1 * (a_offset - 1.25) * a_scale)
    qweight = torch.empty(n, k // NIBBLES, dtype=torch.int32, device=device)
    flat = qweight.view(-1)
    for start in range(0, flat.numel(), _CHUNK // NIBBLES):
        words = min(_CHUNK // NIBBLES, flat.numel() - start)
        q = torch.randint(0, 16, (words, NIBBLES), generator=gen, device=device, dtype=torch.int64)
        flat[start : start + words] = pack_words(q)
    zeros = torch.randint(0, 16, (n, groups), generator=gen, device=device, dtype=torch.uint8)
    log2_scale = torch.empty(n, groups, device=device).uniform_(-2.0, 2.0, generator=gen)
    scales = round_significand(torch.exp2(log2_scale) * (0.01 * s_center), SCALE_BITS).to(torch.bfloat16)
    return {"a": a.to(torch.bfloat16), "qweight": qweight, "scales": scales, "zeros": zeros}


def round_significand(x: torch.Tensor, bits: int) -> torch.Tensor:
    """x rounded to `bits` significant bits (nearest; exact in float64 for these magnitudes)."""
    mantissa, exponent = torch.frexp(x.double())  # x = mantissa * 2^exponent, 0.5 <= |mantissa| < 1
    return torch.ldexp(torch.round(mantissa * 2**bits), (exponent - bits).double()).float()


def pack_words(q: torch.Tensor) -> torch.Tensor:
    """[..., 8] values in [0, 15] (int64) -> [...] int32 words, value i in bits 4i..4i+3."""
    shifts = torch.arange(NIBBLES, device=q.device, dtype=torch.int64) * 4
    word = (q << shifts).sum(dim=-1)  # < 2^32: exact in int64
    return torch.where(word >= 1 << 31, word - (1 << 32), word).to(torch.int32)


def unpack_words(qweight: torch.Tensor) -> torch.Tensor:
    """[rows, words] int32 -> [rows, 8 * words] int64 values in [0, 15], in k order."""
    shifts = torch.arange(NIBBLES, device=qweight.device, dtype=torch.int64) * 4
    words = qweight.to(torch.int64) & 0xFFFF_FFFF
    return ((words[..., None] >> shifts) & 0xF).reshape(qweight.shape[0], -1)


def dequantize(qweight: torch.Tensor, scales: torch.Tensor, zeros: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """w [rows, k] = (q - zero) * scale of each element's group, computed exactly in float64 and
    returned in `dtype` (float64: exact; bf16: what a dequantize-then-GEMM path holds)."""
    q = unpack_words(qweight).double()
    rows = q.shape[0]
    s = scales.double().repeat_interleave(GROUP, dim=1)
    z = zeros.double().repeat_interleave(GROUP, dim=1)
    return ((q - z) * s).reshape(rows, -1).to(dtype)


def reference(
    a: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor, zeros: torch.Tensor, m: int, n: int, k: int
) -> dict[str, torch.Tensor]:
    """Exact weights, exact products, sums in float64: a block of weight rows at a time."""
    a64 = a.double()
    rows = max(1, _CHUNK // max(k, 1))
    parts = [
        a64 @ dequantize(qweight[r : r + rows], scales[r : r + rows], zeros[r : r + rows], torch.float64).T
        for r in range(0, n, rows)
    ]
    return {"c": torch.cat(parts, dim=1)}


def baseline(
    a: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor, zeros: torch.Tensor, m: int, n: int, k: int
) -> dict[str, torch.Tensor]:
    """Plain PyTorch without a fused kernel: the weight dequantized to bf16 in memory, then the
    vendor GEMM (fp32 accumulation, one rounding). The point a submission's speedup is measured
    from."""
    q = (qweight[..., None] >> torch.arange(0, 32, 4, device=a.device, dtype=torch.int32)) & 0xF
    s = scales.repeat_interleave(GROUP, dim=1)
    z = zeros.repeat_interleave(GROUP, dim=1)
    w = (q.reshape(n, k).to(torch.bfloat16) - z.to(torch.bfloat16)) * s
    return {"c": torch.nn.functional.linear(a, w)}
