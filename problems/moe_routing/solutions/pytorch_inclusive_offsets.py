"""Wrong: the offsets as the inclusive cumulative sum of the counts (where each expert's group
ends) instead of the exclusive one (where it starts): every offset is too large by its own count.
Everything else is right."""

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
    expert_offsets.copy_(torch.cumsum(counts, 0))
    permutation.copy_(torch.sort(flat, stable=True).indices)
