"""The acceptance tests and the draw in exact integers: probabilities times 2^20, the residual
and its running sums in int64, w * Z in float64 (a 24-bit by 21-bit product, exact)."""

import torch

UNITS = 1 << 20


def solve(draft_token_ids, draft_probs, target_probs, accept_uniforms, sample_uniforms, num_accepted, next_token, batch, num_draft, vocab):  # fmt: skip
    ids = draft_token_ids.long().unsqueeze(2)
    q = draft_probs.gather(2, ids).squeeze(2)
    p = target_probs[:, :num_draft].gather(2, ids).squeeze(2)
    accepted = accept_uniforms * q < p
    n = torch.where(accepted.all(dim=1), num_draft, (~accepted).int().argmax(dim=1))
    rows = torch.arange(batch, device=draft_probs.device)
    p_n = (target_probs[rows, n].double() * UNITS).long()
    q_n = (draft_probs[rows, n.clamp(max=num_draft - 1)].double() * UNITS).long()
    weights = torch.where((n < num_draft).unsqueeze(1), (p_n - q_n).clamp(min=0), p_n)
    running = torch.cumsum(weights, dim=1)
    below = running.double() <= sample_uniforms.double().unsqueeze(1) * running[:, -1:].double()
    num_accepted.copy_(n)
    next_token.copy_(below.sum(dim=1))
