"""Rejected: a Triton submission that lets torch.softmax, torch.topk and torch.sort do the routing
(forbidden in the source: kernels are asked for)."""

import torch


def solve(logits, topk_ids, topk_weights, expert_counts, expert_offsets, permutation, tokens, experts, top_k):  # fmt: skip
    weights, ids = torch.topk(torch.softmax(logits, dim=1), top_k, dim=1)
    topk_ids.copy_(ids)
    topk_weights.copy_(weights)
    flat = ids.reshape(-1)
    counts = torch.bincount(flat, minlength=experts)
    expert_counts.copy_(counts)
    expert_offsets.copy_(torch.cumsum(counts, 0) - counts)
    permutation.copy_(torch.sort(flat, stable=True).indices)
