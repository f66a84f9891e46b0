"""Calibration variants of the sampling problems of issue 19 (top_p_sampling), for
bench/calibrate_tolerances.py (registered through bench/calibration_catalog.py): formulations a
judge must accept ("other") and the classic mistakes it must refuse ("lower"), computed in fp32
torch on the CPU from the judge's own inputs.

The outputs are token ids compared exactly (atol = rtol = 0): an accepted formulation must give
the reference's integers on every case, and a mistake must change at least one.

A variant's result is a dict of the outputs by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

Results = dict[str, Any]
Variants = Callable[[dict[str, torch.Tensor], dict[str, int]], tuple[Results, Results]]
UNITS = 1 << 20


def _top_p(
    probs: torch.Tensor,
    top_p: torch.Tensor,
    u: torch.Tensor,
    *,
    ties_high: bool = False,
    nucleus_ends: str = "first c_k >= p",
    renormalise: bool = True,
    walk: str = "token order",
    quotient: bool = False,
    reverse_sums: bool = False,
) -> torch.Tensor:
    """Top-p sampling in fp32 with one choice changed from the statement's rule."""
    vocab = probs.shape[1]
    index = torch.arange(vocab)
    # the ranked order: descending probability, equal ones by ascending (or descending) index
    if ties_high:
        order = vocab - 1 - torch.sort(probs.flip(1), dim=1, descending=True, stable=True).indices
    else:
        order = torch.sort(probs, dim=1, descending=True, stable=True).indices
    ranked = probs.gather(1, order)
    csum = ranked.cumsum(1)
    if reverse_sums:  # the same prefix sums as the total less the suffix sums (exact either way)
        csum = ranked.sum(1, keepdim=True) - (ranked.flip(1).cumsum(1).flip(1) - ranked)
    p = top_p[:, None]
    if nucleus_ends == "first c_k >= p":
        k = ((csum < p).sum(1, keepdim=True) + 1).clamp(max=vocab)  # rounded inputs may never reach p
    elif nucleus_ends == "first c_k > p":
        k = ((csum <= p).sum(1, keepdim=True) + 1).clamp(max=vocab)
    else:  # "c_k < p": the crossing token left out
        k = (csum < p).sum(1, keepdim=True).clamp(min=1)
    mass = csum.gather(1, k - 1)
    target = u[:, None] * mass if renormalise else u[:, None]
    if walk == "ranked order":
        rank = (csum <= target).sum(1, keepdim=True).clamp(max=vocab - 1)
        return order.gather(1, rank).squeeze(1).int()
    members = torch.zeros_like(probs, dtype=torch.bool).scatter_(1, order, index[None, :] < k)
    running = torch.where(members, probs, 0.0).cumsum(1)
    past = running / mass > u[:, None] if quotient else running > target
    hit = members & past
    return torch.where(hit.any(1), hit.int().argmax(1), vocab).int()


def _by_bisection(probs: torch.Tensor, top_p: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """No sort: the threshold by bisection over the 2^20 values, the tokens at it by index."""
    lo = torch.ones(probs.shape[0], 1, dtype=torch.int64)
    hi = torch.full_like(lo, UNITS)
    for _ in range(21):
        mid = (lo + hi + 1) // 2
        ok = torch.where(probs >= mid / UNITS, probs, 0.0).sum(1, keepdim=True) >= top_p[:, None]
        lo, hi = torch.where(ok, mid, lo), torch.where(ok, hi, mid - 1)
    t = (lo / UNITS).float()
    above = torch.where(probs > t, probs, 0.0).sum(1, keepdim=True)
    at_t = probs == t
    before = at_t.long().cumsum(1) - at_t.long()
    members = (probs > t) | (at_t & (above + t * before < top_p[:, None]))
    running = torch.where(members, probs, 0.0).cumsum(1)
    hit = members & (running > u[:, None] * running[:, -1:])
    return hit.int().argmax(1).int()


def _top_p_sampling(inp: dict[str, torch.Tensor], sizes: dict[str, int]) -> tuple[Results, Results]:
    probs, top_p, u = (inp[name].cpu().float() for name in ("probs", "top_p", "uniforms"))

    def out(ids: torch.Tensor) -> dict[str, torch.Tensor]:
        return {"token_ids": ids}

    other = {
        "stable sort, fp32 cumulative sums, u * S": out(_top_p(probs, top_p, u)),
        "the same sums added from the other end": out(_top_p(probs, top_p, u, reverse_sums=True)),
        "running / S > u instead of running > u * S": out(_top_p(probs, top_p, u, quotient=True)),
        "bisection for the threshold, no sort": out(_by_bisection(probs, top_p, u)),
    }
    lower = {
        "equal probabilities ranked by descending index": out(_top_p(probs, top_p, u, ties_high=True)),
        "the crossing token left out (c_k < p)": out(_top_p(probs, top_p, u, nucleus_ends="c_k < p")),
        "nucleus ends at c_k > p": out(_top_p(probs, top_p, u, nucleus_ends="first c_k > p")),
        "not renormalised (sample at u)": out(_top_p(probs, top_p, u, renormalise=False)),
        "walked in ranked order": out(_top_p(probs, top_p, u, walk="ranked order")),
        "probabilities through bf16": out(_top_p(probs.bfloat16().float(), top_p, u)),
    }
    return other, lower


PLANS: dict[str, tuple[Variants, tuple[dict[str, int], ...], tuple[dict[str, int], ...]]] = {
    "top_p_sampling": (
        _top_p_sampling,
        (dict(batch=65, vocab=33), dict(batch=64, vocab=1000), dict(batch=32, vocab=32000)),
        (dict(batch=256, vocab=128_256),),
    ),
}
