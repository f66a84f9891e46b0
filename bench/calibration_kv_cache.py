"""Calibration variants of kv_cache_int8, for bench/calibrate_tolerances.py (registered through
bench/calibration_catalog.py): formulations a judge must accept ("other") and classic mistakes it
must refuse ("lower"), computed in numpy fp32 (IEEE, as CUDA's `/`) from the judge's own inputs.

The int8 values must come out identical under every accepted formulation (the tolerance's rtol x
127 < 1 compares them exactly); the scales may differ by a few fp32 ulps. One "lower" row checks
the generator's reason to remove +-absmax/2 elements: put one back into every row whose scale is
inexact, and x / s and 127 x / absmax round apart; another shows that an approximate division for
s itself (2 ulps, as PTX's div.full.f32 allows) breaks the planted halfway cases.

A variant's result is a dict of the four outputs by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

Results = dict[str, Any]
Variants = Callable[[dict[str, torch.Tensor], dict[str, int]], tuple[Results, Results]]
F32 = np.float32
QMAX = F32(127.0)

# (x [rows, head_dim] fp32, absmax [rows, 1] fp32) -> (q as fp32 integers, s fp32)
Quantizer = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def _rne(v: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(v), -127, 127)  # np.rint: half to even


def _ulps(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """x moved by n fp32 ulps (n an integer array, either sign), elementwise."""
    out = x.copy()
    for _ in range(int(np.abs(n).max(initial=0))):
        step = n != 0
        out = np.where(step, np.nextafter(out, np.where(n > 0, F32(np.inf), F32(-np.inf))), out).astype(F32)
        n = n - np.sign(n)
    return out


def _approx_div(a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A division off by up to 2 ulps (PTX div.full.f32's bound), exact when b is a power of two
    (the reciprocal of a power of two is exact)."""
    q = (a / b).astype(F32)
    mantissa, _ = np.frexp(np.broadcast_to(b, q.shape))
    off = rng.integers(-2, 3, size=q.shape)
    return np.where(mantissa == 0.5, q, _ulps(q, np.where(mantissa == 0.5, 0, off)))


def _by_scale(x: np.ndarray, absmax: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = (absmax / QMAX).astype(F32)
    return _rne(x / np.where(s > 0, s, F32(1))), s


def _by_reciprocal(x: np.ndarray, absmax: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = (absmax / QMAX).astype(F32)
    inv = np.where(s > 0, F32(1) / np.where(s > 0, s, F32(1)), F32(0)).astype(F32)
    return _rne(x * inv), s


def _by_absmax(x: np.ndarray, absmax: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = (absmax / QMAX).astype(F32)
    return _rne((x * QMAX) / np.where(absmax > 0, absmax, F32(1))), s


def _scale_by_inverse_127(x: np.ndarray, absmax: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = (absmax * (F32(1) / QMAX)).astype(F32)
    return _rne(x / np.where(s > 0, s, F32(1))), s


def _approximate(seed: int, scale_too: bool) -> Quantizer:
    """x / s by an approximate division; s = absmax / 127 too when scale_too (else rounded)."""

    def quantize(x: np.ndarray, absmax: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rng = np.random.default_rng(seed)
        s = _approx_div(absmax, np.full_like(absmax, QMAX), rng) if scale_too else (absmax / QMAX).astype(F32)
        s = np.where(absmax > 0, s, F32(0)).astype(F32)
        return _rne(_approx_div(x, np.where(s > 0, s, F32(1)), rng)), s

    return quantize


def _half_away(x: np.ndarray, absmax: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = (absmax / QMAX).astype(F32)
    v = x / np.where(s > 0, s, F32(1))
    return np.sign(v) * np.floor(np.abs(v) + F32(0.5)), s


def _truncated(x: np.ndarray, absmax: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = (absmax / QMAX).astype(F32)
    return np.trunc(x / np.where(s > 0, s, F32(1))), s


def _scale_through(dtype: torch.dtype) -> Quantizer:
    def quantize(x: np.ndarray, absmax: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        s = torch.from_numpy((absmax / QMAX).astype(F32)).to(dtype).float().numpy()
        return _rne(x / np.where(s > 0, s, F32(1))), s

    return quantize


def _outputs(inp: dict[str, torch.Tensor], sizes: dict[str, int], quantize: Quantizer) -> dict[str, torch.Tensor]:
    """The four outputs with every row quantized by `quantize` (a zero row: s = 0, q = 0)."""
    slots = inp["slot_mapping"].cpu().long()
    live = slots >= 0
    where = slots[live]
    heads, head_dim = sizes["num_kv_heads"], sizes["head_dim"]
    page = (sizes["num_blocks"], sizes["block_size"])
    out: dict[str, torch.Tensor] = {}
    for name, cache, scale in (("key", "k_cache", "k_scale"), ("value", "v_cache", "v_scale")):
        x = inp[name].cpu()[live].float().reshape(-1, head_dim).numpy()
        absmax = np.abs(x).max(axis=1, keepdims=True).astype(F32)
        q, s = quantize(x, absmax)
        q = np.where(absmax > 0, q, 0)
        c = torch.zeros(page[0] * page[1], heads, head_dim, dtype=torch.int8)
        sc = torch.zeros(page[0] * page[1], heads, dtype=torch.float32)
        c[where] = torch.from_numpy(q.astype(np.int8)).reshape(-1, heads, head_dim)
        sc[where] = torch.from_numpy(np.where(absmax > 0, s, F32(0)).astype(F32)).reshape(-1, heads)
        out[cache] = c.view(*page, heads, head_dim)
        out[scale] = sc.view(*page, heads)
    return out


def _with_halves_put_back(inp: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The inputs with one element of every row whose absmax / 127 is inexact set to +-absmax / 2
    (what the generator removes)."""
    changed = dict(inp)
    for name in ("key", "value"):
        x = inp[name].cpu().float().clone()
        absmax = x.abs().amax(dim=-1, keepdim=True)
        mantissa, _ = torch.frexp(absmax.double() / 127)
        inexact = ((mantissa != 0.5) & (absmax > 0)).squeeze(-1)
        head_dim = x.shape[-1]
        if head_dim > 1:
            # the element after the row's absmax (never the absmax itself), half of it, same sign
            at = (x.abs().argmax(dim=-1) + 1) % head_dim
            half = torch.where(inexact, absmax.squeeze(-1) / 2, x.gather(-1, at[..., None]).squeeze(-1).abs())
            x.scatter_(-1, at[..., None], half[..., None])
        changed[name] = x.to(torch.bfloat16)  # absmax / 2 is exact in bf16
    return changed


def _kv_cache_int8(inp: dict[str, torch.Tensor], sizes: dict[str, int]) -> tuple[Results, Results]:
    other = {
        "q = rint(x / s), IEEE fp32": _outputs(inp, sizes, _by_scale),
        "q = rint(x * (1 / s))": _outputs(inp, sizes, _by_reciprocal),
        "q = rint(127 x / absmax)": _outputs(inp, sizes, _by_absmax),
        "s = absmax * (1 / 127)": _outputs(inp, sizes, _scale_by_inverse_127),
        "x / s 2 ulps off (div.full; exact by a power of two)": _outputs(inp, sizes, _approximate(7, False)),
    }
    # The ambiguity the generator removes: x / s and 127 x / absmax on inputs that keep +-absmax/2.
    kept = _with_halves_put_back(inp)
    by_scale, by_absmax = _outputs(kept, sizes, _by_scale), _outputs(kept, sizes, _by_absmax)
    mixed = _outputs(inp, sizes, _by_scale)
    for cache in ("k_cache", "v_cache"):
        mixed[cache] = (
            (mixed[cache].int() + by_absmax[cache].int() - by_scale[cache].int()).clamp(-127, 127).to(torch.int8)
        )
    lower = {
        "round half away from zero": _outputs(inp, sizes, _half_away),
        "truncation toward zero": _outputs(inp, sizes, _truncated),
        "scales through fp16": _outputs(inp, sizes, _scale_through(torch.float16)),
        "scales through bf16": _outputs(inp, sizes, _scale_through(torch.bfloat16)),
        # s = 127 * 2^j / 127 a few ulps off 2^j: the planted ties are ties no longer (why the
        # statement asks for a correctly rounded division there: Triton's tl.math.div_rn)
        "absmax / 127 2 ulps off too (Triton's fp32 /)": _outputs(inp, sizes, _approximate(7, True)),
        "x / s against 127 x / absmax, had +-absmax/2 been drawn": mixed,
    }
    return other, lower


KV = dict(block_size=16, num_kv_heads=8, head_dim=128)
PLANS: dict[str, tuple[Variants, tuple[dict[str, int], ...], tuple[dict[str, int], ...]]] = {
    "kv_cache_int8": (
        _kv_cache_int8,
        (
            dict(num_blocks=3, block_size=5, num_kv_heads=3, head_dim=7, padding=2),
            dict(num_blocks=37, block_size=1, num_kv_heads=4, head_dim=64, padding=4),
            dict(num_blocks=15, padding=16, **KV),
            dict(num_blocks=16, block_size=16, num_kv_heads=32, head_dim=128, padding=1),
        ),
        (dict(num_blocks=512, padding=1, **KV),),
    ),
}
