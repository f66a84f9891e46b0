"""Calibration variants of the inference-track problems of issue 19 (rope), for
bench/calibrate_tolerances.py: per problem, results a judge must accept ("other") and results one
precision step lower, or the classic mistake, it must refuse ("lower"), computed from the judge's
own inputs on the CPU. Rows ending in "(info)" document results that need not fail (see
docs/tolerances.md).

A variant's result is a tensor (the problem's first output) or a dict of outputs by name.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

Results = dict[str, Any]
Variants = Callable[[dict[str, torch.Tensor], dict[str, int]], tuple[Results, Results]]


def to_bf16(x: torch.Tensor) -> torch.Tensor:
    return x.to(torch.bfloat16).float()


# ---------------------------------------------------------------------------------------------
# rope


def _rotate(
    x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: int, rnd: Callable = lambda t: t
) -> torch.Tensor:
    """x [tokens, heads, d] in fp32; each product and sum passed through rnd (bf16 arithmetic)."""
    half = x.shape[-1] // 2
    a, b = (x[..., 0::2], x[..., 1::2]) if layout == 1 else (x[..., :half], x[..., half:])
    c, s = cos[:, None, :], sin[:, None, :]
    first = rnd(rnd(a * c) - rnd(b * s))
    second = rnd(rnd(b * c) + rnd(a * s))
    out = torch.empty_like(x)
    if layout == 1:
        out[..., 0::2], out[..., 1::2] = first, second
    else:
        out[..., :half], out[..., half:] = first, second
    return out


def _turns(angle: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin as an approximate unit computes them: the fp32 angle times fp32(1/2pi),
    rounded toward zero (the range reduction in turns), then exact."""
    c = float(torch.tensor(1 / (2 * math.pi), dtype=torch.float32))
    exact = angle.double() * c
    turns = exact.float()
    turns = torch.where(turns.double().abs() > exact.abs(), torch.nextafter(turns, torch.zeros_like(turns)), turns)
    radians = turns.double() * 2 * math.pi
    return radians.cos().float(), radians.sin().float()


def _rope(inp: dict[str, torch.Tensor], sizes: dict[str, int]) -> tuple[Results, Results]:
    q, k, pos = inp["q"].cpu(), inp["k"].cpu(), inp["positions"].cpu()
    d, layout, theta = sizes["head_dim"], sizes["layout"], sizes["theta"]
    steps = torch.arange(0, d, 2, dtype=torch.float32) / d
    t32 = torch.tensor(float(theta), dtype=torch.float32)
    freqs = {
        "pow": t32 ** (-steps),
        "reciprocal": 1.0 / (t32**steps),
        "exp2": torch.exp2(-steps * torch.log2(t32)),
    }

    def run(
        inv_freq: torch.Tensor,
        position: torch.Tensor | None = None,
        trig: str = "exact",
        xin: Callable = lambda t: t,
        rnd: Callable = lambda t: t,
    ) -> dict[str, torch.Tensor]:
        angle = (pos.float() if position is None else position)[:, None] * inv_freq[None, :]
        if trig == "turns":
            cos, sin = _turns(angle)
        else:
            cos, sin = angle.double().cos().float(), angle.double().sin().float()
            if trig == "bf16":
                cos, sin = to_bf16(cos), to_bf16(sin)
        return {
            "q_out": to_bf16(_rotate(xin(q.float()), cos, sin, layout, rnd)),
            "k_out": to_bf16(_rotate(xin(k.float()), cos, sin, layout, rnd)),
        }

    e4 = lambda t: t.to(torch.float8_e4m3fn).float()  # noqa: E731
    other = {
        "fp32 powf frequencies, accurate cos/sin": run(freqs["pow"]),
        "fp32 1 / theta^(2i/d) (model code's form)": run(freqs["reciprocal"]),
        "fp32 exp2(-(2i/d) log2 theta)": run(freqs["exp2"]),
        "fp32 angle, cos/sin reduced in turns (x 1/2pi toward zero)": run(freqs["reciprocal"], trig="turns"),
    }
    lower = {
        "positions rounded to bf16": run(freqs["pow"], position=to_bf16(pos.float())),
        "positions rounded to fp16": run(freqs["pow"], position=pos.half().float()),
        "inverse frequencies rounded to bf16": run(to_bf16(freqs["pow"])),
        "e4m3 q and k": run(freqs["pow"], xin=e4),
        "cos/sin rounded to bf16, fp32 rotation (info)": run(freqs["pow"], trig="bf16"),
        "all in bf16: cos/sin, products, sums (info)": run(freqs["reciprocal"], trig="bf16", rnd=to_bf16),
    }
    return other, lower


# slug -> (variants, small sizes, large sizes)
ROPE = dict(num_heads=32, num_kv_heads=8, head_dim=128)
INFERENCE_PLANS: dict[str, tuple[Variants, tuple[dict[str, int], ...], tuple[dict[str, int], ...]]] = {
    "rope": (
        _rope,
        (
            dict(num_tokens=256, layout=2, theta=500000, **ROPE),
            dict(num_tokens=512, num_heads=8, num_kv_heads=2, head_dim=64, layout=1, theta=10000),
            dict(num_tokens=128, num_heads=7, num_kv_heads=7, head_dim=80, layout=2, theta=1000000),
        ),
        (dict(num_tokens=4096, layout=1, theta=500000, **ROPE), dict(num_tokens=4096, layout=2, theta=1000000, **ROPE)),
    ),
}
