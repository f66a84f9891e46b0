"""Wrong answer: n counts every accepted draft token, also those after the first rejection, instead
of the accepted prefix."""

import torch


def solve(draft_token_ids, draft_probs, target_probs, accept_uniforms, sample_uniforms, num_accepted, next_token, batch, num_draft, vocab):  # fmt: skip
    ids = draft_token_ids.long().unsqueeze(2)
    q = draft_probs.gather(2, ids).squeeze(2)
    p = target_probs[:, :num_draft].gather(2, ids).squeeze(2)
    accepted = (accept_uniforms * q < p).int()
    n = accepted.sum(dim=1)
    rows = torch.arange(batch, device=draft_probs.device)
    p_n = target_probs[rows, n]
    q_n = draft_probs[rows, n.clamp(max=num_draft - 1)]
    weights = torch.where((n < num_draft).unsqueeze(1), (p_n - q_n).clamp(min=0), p_n)
    running = torch.cumsum(weights, dim=1)
    hit = (weights > 0) & (running > sample_uniforms.unsqueeze(1) * running[:, -1:])
    num_accepted.copy_(n)
    next_token.copy_(torch.where(hit.any(dim=1), hit.int().argmax(dim=1), vocab - 1))
