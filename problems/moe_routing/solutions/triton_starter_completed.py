"""Accepted: the Triton starter completed as its TODOs say. One program per token: the row's
maximum and sum of exponentials, then top_k rounds of "largest remaining logit, lowest id among
equal ones", each written with its probability. One program per expert: it counts the assignments
to itself and to lower ids (its count and offset), then walks the flat ids in order and writes the
flat index of its i-th assignment to permutation[offset + i]."""

import torch
import triton
import triton.language as tl


@triton.jit
def route_kernel(logits_ptr, ids_ptr, weights_ptr, experts, TOP_K: tl.constexpr, E_PAD: tl.constexpr):
    token = tl.program_id(0)
    cols = tl.arange(0, E_PAD)
    x = tl.load(logits_ptr + token * experts + cols, mask=cols < experts, other=-float("inf"))
    m = tl.max(x, axis=0)
    s = tl.sum(tl.exp(x - m), axis=0)
    for j in tl.static_range(TOP_K):
        best = tl.max(x, axis=0)
        best_id = tl.min(tl.where(x == best, cols, E_PAD), axis=0)
        tl.store(ids_ptr + token * TOP_K + j, best_id)
        tl.store(weights_ptr + token * TOP_K + j, tl.exp(best - m) / s)
        x = tl.where(cols == best_id, -float("inf"), x)


@triton.jit
def group_kernel(ids_ptr, counts_ptr, offsets_ptr, perm_ptr, total, BLOCK: tl.constexpr):
    expert = tl.program_id(0)
    count = 0
    below = 0
    for start in range(0, total, BLOCK):
        i = start + tl.arange(0, BLOCK)
        e = tl.load(ids_ptr + i, mask=i < total, other=-1)
        count += tl.sum((e == expert).to(tl.int32), axis=0)
        below += tl.sum(((e >= 0) & (e < expert)).to(tl.int32), axis=0)
    tl.store(counts_ptr + expert, count)
    tl.store(offsets_ptr + expert, below)
    seen = 0
    for start in range(0, total, BLOCK):
        i = start + tl.arange(0, BLOCK)
        e = tl.load(ids_ptr + i, mask=i < total, other=-1)
        match = (e == expert).to(tl.int32)
        rank = tl.cumsum(match, axis=0) - match
        tl.store(perm_ptr + below + seen + rank, i, mask=match == 1)
        seen += tl.sum(match, axis=0)


def solve(logits, topk_ids, topk_weights, expert_counts, expert_offsets, permutation, tokens, experts, top_k):  # fmt: skip
    route_kernel[(tokens,)](
        logits, topk_ids, topk_weights, experts, TOP_K=top_k, E_PAD=max(16, triton.next_power_of_2(experts))
    )
    group_kernel[(experts,)](topk_ids, expert_counts, expert_offsets, permutation, tokens * top_k, BLOCK=1024)
