"""Calibration variants of grouped_gemm, for bench/calibrate_tolerances.py (registered through
bench/calibration_catalog.py): results a judge must accept ("other": fp32 accumulation in another
order) and results one precision step lower, or one classic mistake away, that it must refuse
("lower"), computed on the CPU from the judge's own inputs, expert by expert.

A variant's result is the output c (fp32 holding bf16 values).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

Results = dict[str, Any]
Variants = Callable[[dict[str, torch.Tensor], dict[str, int]], tuple[Results, Results]]
# (rows of a, the expert's weight), both fp32 holding bf16 values -> the rows of c before rounding
Product = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def to_bf16(x: torch.Tensor) -> torch.Tensor:
    return x.to(torch.bfloat16).float()


def to_e4m3(x: torch.Tensor) -> torch.Tensor:
    return x.float().clamp(-448.0, 448.0).to(torch.float8_e4m3fn).float()


def _bounds(inp: dict[str, torch.Tensor]) -> list[int]:
    return [int(v) for v in inp["expert_offsets"].cpu().tolist()]


def _grouped(inp: dict[str, torch.Tensor], product: Product, shift: int = 0) -> torch.Tensor:
    """c with every expert's rows from `product`, rounded once to bf16. shift = 1 gives each
    expert's first row the weight of the expert before it (the tile-map off-by-one)."""
    a, w = inp["a"].cpu().float(), inp["w"].cpu().float()
    bounds = _bounds(inp)
    c = torch.zeros(a.shape[0], w.shape[1])
    for e in range(w.shape[0]):
        lo, hi = bounds[e], bounds[e + 1]
        if hi > lo:
            c[lo:hi] = product(a[lo:hi], w[e])
    if shift:
        owner = torch.bucketize(torch.arange(a.shape[0]), torch.tensor(bounds[1:]), right=True)
        for e in range(1, w.shape[0]):
            lo = bounds[e]
            if bounds[e + 1] > lo:
                c[lo] = a[lo] @ w[int(owner[lo - 1]) if lo else 0].T
    return to_bf16(c)


def _chunked(chunk: int, acc_round: Callable[[torch.Tensor], torch.Tensor], reverse: bool = False) -> Product:
    """A k-loop in steps of `chunk`, the running sum passed through acc_round after each step."""

    def product(a: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        k = a.shape[1]
        starts = list(range(0, k, chunk))
        acc = torch.zeros(a.shape[0], w.shape[0])
        for s in reversed(starts) if reverse else starts:
            acc = acc_round(acc + a[:, s : s + chunk] @ w[:, s : s + chunk].T)
        return acc

    return product


def _split_k(parts: int, partial_round: Callable[[torch.Tensor], torch.Tensor]) -> Product:
    def product(a: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        step = -(-a.shape[1] // parts)
        return sum(
            (partial_round(a[:, s : s + step] @ w[:, s : s + step].T) for s in range(0, a.shape[1], step)),
            torch.zeros(a.shape[0], w.shape[0]),
        )

    return product


def _keep(x: torch.Tensor) -> torch.Tensor:
    return x


def _grouped_gemm(inp: dict[str, torch.Tensor], sizes: dict[str, int]) -> tuple[Results, Results]:
    other = {
        "fp32 accumulate (CPU GEMM per expert)": _grouped(inp, lambda a, w: a @ w.T),
        "fp32 k-steps of 32 in order": _grouped(inp, _chunked(32, _keep)),
        "fp32 k-steps of 64, reversed": _grouped(inp, _chunked(64, _keep, reverse=True)),
        "split-K 4, fp32 partials summed": _grouped(inp, _split_k(4, _keep)),
    }
    lower = {
        "bf16 accumulator (k-steps of 32)": _grouped(inp, _chunked(32, to_bf16)),
        "bf16 accumulator (k-steps of 64)": _grouped(inp, _chunked(64, to_bf16)),
        "split-K 4, partials rounded to bf16": _grouped(inp, _split_k(4, to_bf16)),
        "e4m3 weights, fp32 accumulate": _grouped(inp, lambda a, w: a @ to_e4m3(w).T),
        "each expert's first row with the previous expert's weight": _grouped(inp, lambda a, w: a @ w.T, shift=1),
    }
    return other, lower


PLANS: dict[str, tuple[Variants, tuple[dict[str, int], ...], tuple[dict[str, int], ...]]] = {
    "grouped_gemm": (
        _grouped_gemm,
        (
            dict(tokens=150, experts=8, active_experts=6, n=17, k=520),
            dict(tokens=97, experts=3, active_experts=3, n=65, k=257),
            dict(tokens=512, experts=8, active_experts=8, n=256, k=4096),
            dict(tokens=256, experts=64, active_experts=50, n=64, k=7168),
        ),
        (
            dict(tokens=4099, experts=8, active_experts=8, n=1024, k=4096),
            dict(tokens=256, experts=64, active_experts=50, n=2048, k=7168),
        ),
    ),
}
