"""Calibration variants of the sampling problems of issue 19 (top_p_sampling, spec_decode_verify), for
bench/calibrate_tolerances.py (registered through bench/calibration_catalog.py): formulations a
judge must accept ("other") and the classic mistakes it must refuse ("lower"), computed in fp32
torch on the CPU from the judge's own inputs.

The outputs are integers (token ids, accepted lengths) compared exactly (atol = rtol = 0): an accepted formulation must give
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


def _verify(
    inp: dict[str, torch.Tensor],
    *,
    test: str = "u * q < p",
    prefix: bool = True,
    weights: str = "max(0, p - q)",
    bonus_row: int = 0,
    renormalise: bool = True,
    quotient: bool = False,
    through: torch.dtype = torch.float32,
) -> dict[str, torch.Tensor]:
    """Speculative decoding verification in fp32 with one choice changed from the statement's rule
    (bonus_row -1: the bonus drawn from row K - 1)."""
    q_all, p_all = (inp[name].cpu().to(through).float() for name in ("draft_probs", "target_probs"))
    u, w = inp["accept_uniforms"].cpu().float(), inp["sample_uniforms"].cpu().float()
    batch, k, _ = q_all.shape
    ids = inp["draft_token_ids"].cpu().long().unsqueeze(2)
    q = q_all.gather(2, ids).squeeze(2)
    p = p_all[:, :k].gather(2, ids).squeeze(2)
    if test == "u * q < p":
        accepted = u * q < p
    elif test == "u < p / q":
        accepted = u < p / q
    else:  # "u * q <= p"
        accepted = u * q <= p
    n = accepted.int().cumprod(1).sum(1) if prefix else accepted.int().sum(1)
    rows = torch.arange(batch)
    p_n = p_all[rows, (n + bonus_row * (n == k)).long()]
    q_n = q_all[rows, n.clamp(max=k - 1).long()]
    d = {"max(0, p - q)": (p_n - q_n).clamp(min=0), "p - q": p_n - q_n, "p": p_n}[weights]
    d = torch.where((n < k).unsqueeze(1), d, p_n)
    running = d.cumsum(1)
    total = running[:, -1:]
    target = w.unsqueeze(1) * total if renormalise else w.unsqueeze(1)
    past = running / total > w.unsqueeze(1) if quotient else running > target
    hit = past & (d > 0)
    token = torch.where(hit.any(1), hit.int().argmax(1), d.shape[1] - 1)
    return {"num_accepted": n.int(), "next_token": token.int()}


def _spec_decode_verify(inp: dict[str, torch.Tensor], sizes: dict[str, int]) -> tuple[Results, Results]:
    other = {
        "u * q < p in fp32, fp32 residual sums, w * Z": _verify(inp),
        "u < p / q (correctly rounded division)": _verify(inp, test="u < p / q"),
        "running / Z > w instead of running > w * Z": _verify(inp, quotient=True),
    }
    lower = {
        "accept on u * q <= p": _verify(inp, test="u * q <= p"),
        "every acceptance counted, not the prefix": _verify(inp, prefix=False),
        "residual not renormalised (draw at w)": _verify(inp, renormalise=False),
        "correction drawn from p_n, not the residual": _verify(inp, weights="p"),
        "residual p - q without max(0, .)": _verify(inp, weights="p - q"),
        "bonus from row K - 1": _verify(inp, bonus_row=-1),
        "probabilities through bf16": _verify(inp, through=torch.bfloat16),
    }
    return other, lower


PLANS: dict[str, tuple[Variants, tuple[dict[str, int], ...], tuple[dict[str, int], ...]]] = {
    "top_p_sampling": (
        _top_p_sampling,
        (dict(batch=65, vocab=33), dict(batch=64, vocab=1000), dict(batch=32, vocab=32000)),
        (dict(batch=256, vocab=128_256),),
    ),
    "spec_decode_verify": (
        _spec_decode_verify,
        (
            dict(batch=33, num_draft=2, vocab=17),
            dict(batch=64, num_draft=4, vocab=1000),
            dict(batch=16, num_draft=8, vocab=32000),
        ),
        (dict(batch=64, num_draft=8, vocab=128_256),),
    ),
}
