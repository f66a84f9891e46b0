"""Accepted: the PyTorch language may call anything: torch.softmax, a stable descending sort for
the selection, bincount, cumsum and a stable sort of the flat ids, written into the outputs."""

import torch


def solve(logits, topk_ids, topk_weights, expert_counts, expert_offsets, permutation, tokens, experts, top_k):  # fmt: skip
    order = torch.sort(logits, dim=1, descending=True, stable=True).indices[:, :top_k]
    topk_ids.copy_(order)
    torch.gather(torch.softmax(logits, dim=1), 1, order, out=topk_weights)
    flat = order.reshape(-1)
    counts = torch.bincount(flat, minlength=experts)
    expert_counts.copy_(counts)
    expert_offsets.copy_(torch.cumsum(counts, 0) - counts)
    permutation.copy_(torch.sort(flat, stable=True).indices)
