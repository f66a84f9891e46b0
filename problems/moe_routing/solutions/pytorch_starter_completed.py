"""Accepted: the PyTorch starter completed as its comment says: the softmax of each row in fp32, a
stable descending sort of the logits (equal ones keep ascending ids), the first top_k ids and their
probabilities, the counts by bincount, their exclusive cumulative sum, and a stable sort of the
flattened ids for the permutation."""

import torch


def solve(
    logits: torch.Tensor,
    topk_ids: torch.Tensor,
    topk_weights: torch.Tensor,
    expert_counts: torch.Tensor,
    expert_offsets: torch.Tensor,
    permutation: torch.Tensor,
    tokens: int,
    experts: int,
    top_k: int,
) -> None:
    probs = torch.softmax(logits, dim=1)
    ids = torch.sort(logits, dim=1, descending=True, stable=True).indices[:, :top_k]
    topk_ids.copy_(ids)
    topk_weights.copy_(torch.gather(probs, 1, ids))
    flat = ids.reshape(-1)
    counts = torch.bincount(flat, minlength=experts)
    expert_counts.copy_(counts)
    expert_offsets.copy_(torch.cumsum(counts, 0) - counts)
    permutation.copy_(torch.sort(flat, stable=True).indices)
