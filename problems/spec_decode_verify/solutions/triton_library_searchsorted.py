"""Rejected: the residual by torch.clamp and the draw by torch.cumsum and torch.searchsorted in a
Triton submission: forbidden in the source."""

import torch


def solve(draft_token_ids, draft_probs, target_probs, accept_uniforms, sample_uniforms, num_accepted, next_token, batch, num_draft, vocab):  # fmt: skip
    ids = draft_token_ids.long().unsqueeze(2)
    q = torch.gather(draft_probs, 2, ids).squeeze(2)
    p = torch.gather(target_probs[:, :num_draft], 2, ids).squeeze(2)
    n = (accept_uniforms * q < p).int().cumprod(dim=1).sum(dim=1)
    rows = torch.arange(batch, device=draft_probs.device)
    p_n = target_probs[rows, n]
    q_n = draft_probs[rows, torch.clamp(n, max=num_draft - 1)]
    weights = torch.where((n < num_draft).unsqueeze(1), torch.clamp(p_n - q_n, min=0), p_n)
    running = torch.cumsum(weights, dim=1)
    target = (sample_uniforms * running[:, -1]).unsqueeze(1)
    num_accepted.copy_(n)
    next_token.copy_(torch.searchsorted(running, target, right=True).squeeze(1))
