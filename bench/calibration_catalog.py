"""Calibration variants of the catalog problems (beyond the seed five), for
bench/calibrate_tolerances.py: per problem, results a judge must accept ("other") and results one
precision step lower it must refuse ("lower"), computed from the judge's own inputs on the CPU.

A variant's result is a tensor (the problem's first output) or a dict of outputs by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

Results = dict[str, Any]
Variants = Callable[[dict[str, torch.Tensor], dict[str, int]], tuple[Results, Results]]


def to_bf16(x: torch.Tensor) -> torch.Tensor:
    return x.to(torch.bfloat16).float()


def round_mantissa(x: torch.Tensor, bits: int) -> torch.Tensor:
    """Round fp32 values to `bits` explicit mantissa bits, nearest-even (tf32: bits=10)."""
    x = x.float().contiguous()
    shift = 23 - bits
    i = x.view(torch.int32)
    lsb = (i >> shift) & 1
    i = (i + ((1 << (shift - 1)) - 1) + lsb) & ~((1 << shift) - 1)
    return i.view(torch.float32)


def _transpose(inp: dict[str, torch.Tensor], sizes: dict[str, int]) -> tuple[Results, Results]:
    x = inp["x"].cpu()
    other = {"fp32 strided copy": x.t().contiguous(), "fp32 via 32x32 tiles": _tiled_transpose(x, 32)}
    lower = {"values through bf16": to_bf16(x).t().contiguous(), "values through tf32": round_mantissa(x, 10).t()}
    return other, lower


def _tiled_transpose(x: torch.Tensor, tile: int) -> torch.Tensor:
    m, n = x.shape
    y = torch.empty(n, m)
    for r in range(0, m, tile):
        for c in range(0, n, tile):
            y[c : c + tile, r : r + tile] = x[r : r + tile, c : c + tile].t()
    return y


def _embedding_gather(inp: dict[str, torch.Tensor], sizes: dict[str, int]) -> tuple[Results, Results]:
    table, idx = inp["table"].cpu(), inp["indices"].cpu().long()
    other = {"bf16 row copy": table[idx], "bf16 via float32": table.float()[idx]}
    lower = {
        "rows through fp16 (info)": table[idx].half().float(),
        "rows through e4m3": table[idx].float().to(torch.float8_e4m3fn).float(),
    }
    return other, lower


def _histogram(inp: dict[str, torch.Tensor], sizes: dict[str, int]) -> tuple[Results, Results]:
    data = inp["data"].cpu().long()
    bins = sizes["num_bins"]
    exact = torch.bincount(data, minlength=bins)
    partials = sum(torch.bincount(part, minlength=bins) for part in data.chunk(8))
    other = {"int64 bincount": exact.int(), "8 partial histograms summed": partials.int()}
    lower = {
        "int16 counters (wrap past 32767)": exact.to(torch.int16).int(),
        "float32 counters, exact below 2^24 (info)": exact.float(),
    }
    return other, lower


# slug -> (variants, small sizes, large sizes)
CATALOG_PLANS: dict[str, tuple[Variants, tuple[dict[str, int], ...], tuple[dict[str, int], ...]]] = {
    "transpose": (_transpose, ({"m": 257, "n": 263}, {"m": 1024, "n": 96}), ({"m": 4099, "n": 4093},)),
    "histogram": (
        _histogram,
        ({"n": 1 << 22, "num_bins": 256}, {"n": (1 << 23) + 7, "num_bins": 4096}),
        ({"n": 1 << 26, "num_bins": 64},),
    ),
    "embedding_gather": (
        _embedding_gather,
        ({"num_tokens": 1000, "vocab": 50_000, "dim": 64}, {"num_tokens": 64, "vocab": 32_000, "dim": 512}),
        ({"num_tokens": 4099, "vocab": 100_003, "dim": 1031},),
    ),
}
