"""Trusted reference for MoE routing: softmax top-k gating, then the permutation that groups the
(token, slot) assignments by expert. Runs only in the trusted process.

Layouts (contiguous, row-major):
  logits        fp32  [tokens, experts]
  topk_ids      int32 [tokens, top_k]    by descending logit, equal logits by lower expert id
  topk_weights  fp32  [tokens, top_k]    softmax over all experts of the row (not renormalized)
  expert_counts int32 [experts]          assignments per expert (sums to tokens * top_k)
  expert_offsets int32 [experts]         exclusive prefix sum of expert_counts
  permutation   int32 [tokens * top_k]   flat indices t * top_k + j, grouped by expert (ascending
                                         id), in increasing flat index within an expert
"""

from __future__ import annotations

import torch

_PARAM_SALT = 0x5A17_0015
STEP = 2.0**-12  # logits are multiples of STEP: distinct ones differ by >= 0.024% in probability
MAX_TOP_K = 8


def generate_inputs(
    seed: int, device: str = "cpu", *, tokens: int, experts: int, top_k: int
) -> dict[str, torch.Tensor]:
    """logits = (offset_t + round(N(0, sigma) / STEP)) * STEP, exact in fp32, with planted ties.

    STEP = 2^-12, sigma in [0.5, 3] per case and a per-token offset in [-8, 8]. Every logit is a
    multiple of 2^-12 below 2^5 in magnitude, so it is exact in fp32 (17 significant bits), and
    two logits are either bit-identical or at least 2^-12 apart: their probabilities differ by at
    least 0.024%, some 200 times what any fp32 computation of them can be off by (about 1e-6
    relative), so no selection depends on rounding. Ties are planted on purpose: a third of the
    tokens get the row's maximum copied to another random expert (a tie at the top), a third the
    top_k-th largest value copied to an expert ranked below it (a tie at the selection boundary,
    which the lower expert id wins). Equal values are therefore equal exactly, and the tie rule
    alone decides.
    """
    if not 1 <= top_k <= min(MAX_TOP_K, experts):
        raise ValueError("top_k must be between 1 and min(8, experts)")
    gen_params = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    sigma = float(torch.empty(1, dtype=torch.float64).uniform_(0.5, 3.0, generator=gen_params))
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    units = torch.randn(tokens, experts, generator=gen, device=device).mul_(sigma / STEP).round_()
    offsets = torch.randint(-(8 << 12), (8 << 12) + 1, (tokens, 1), generator=gen, device=device)  # [-8, 8] / STEP
    logits = (units + offsets).mul_(STEP)
    if experts > 1:
        values, order = torch.sort(logits, dim=1, descending=True, stable=True)
        kind = torch.randint(0, 3, (tokens,), generator=gen, device=device)
        rows = torch.arange(tokens, device=device)
        # a tie at the top: the maximum copied to a random other expert
        at = torch.randint(1, experts, (tokens,), generator=gen, device=device)
        top = kind == 0
        logits[rows[top], order[rows[top], at[top]]] = values[top, 0]
        # a tie at the boundary: the top_k-th value copied to an expert ranked below it
        if top_k < experts:
            below = torch.randint(top_k, experts, (tokens,), generator=gen, device=device)
            edge = kind == 1
            logits[rows[edge], order[rows[edge], below[edge]]] = values[edge, top_k - 1]
    return {"logits": logits.contiguous()}


def reference(logits: torch.Tensor, tokens: int, experts: int, top_k: int) -> dict[str, torch.Tensor]:
    """Probabilities in float64; selection and permutation by stable sorts (ties: lower index)."""
    probs = torch.softmax(logits.double(), dim=1)
    # A stable descending sort keeps equal logits in ascending expert order.
    order = torch.sort(logits, dim=1, descending=True, stable=True).indices[:, :top_k]
    ids = order.to(torch.int32)
    weights = torch.gather(probs, 1, order)
    flat = ids.reshape(-1).long()
    counts = torch.bincount(flat, minlength=experts)
    offsets = torch.cumsum(counts, 0) - counts
    permutation = torch.sort(flat, stable=True).indices
    return {
        "topk_ids": ids,
        "topk_weights": weights,
        "expert_counts": counts.to(torch.int32),
        "expert_offsets": offsets.to(torch.int32),
        "permutation": permutation.to(torch.int32),
    }


def baseline(logits: torch.Tensor, tokens: int, experts: int, top_k: int) -> dict[str, torch.Tensor]:
    """Plain PyTorch, as a framework's router does it: fp32 softmax, torch.topk, then a stable
    argsort of the flattened ids. The point a submission's speedup is measured from.

    torch.topk promises no order among equal values, so this is only timed, never used as an
    answer: the ids it returns may break a planted tie the other way.
    """
    probs = torch.softmax(logits, dim=1)
    weights, ids = torch.topk(probs, top_k, dim=1)
    flat = ids.reshape(-1)
    counts = torch.bincount(flat, minlength=experts)
    offsets = torch.cumsum(counts, 0) - counts
    permutation = torch.sort(flat, stable=True).indices
    return {
        "topk_ids": ids.to(torch.int32),
        "topk_weights": weights,
        "expert_counts": counts.to(torch.int32),
        "expert_offsets": offsets.to(torch.int32),
        "permutation": permutation.to(torch.int32),
    }
