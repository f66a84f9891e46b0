"""Wrong: the weights renormalized over the k selected experts (as some models do), while the
statement asks for the softmax probabilities over all experts as they are: every weight is too
large by the factor 1 / (sum of the selected probabilities). Right only when top_k == experts."""

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
    picked = torch.gather(probs, 1, ids)
    topk_weights.copy_(picked / picked.sum(dim=1, keepdim=True))  # renormalized over the k
    flat = ids.reshape(-1)
    counts = torch.bincount(flat, minlength=experts)
    expert_counts.copy_(counts)
    expert_offsets.copy_(torch.cumsum(counts, 0) - counts)
    permutation.copy_(torch.sort(flat, stable=True).indices)
