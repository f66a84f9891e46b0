"""Compile error: an unclosed bracket in the gather of the draft probabilities."""

import torch


def solve(draft_token_ids, draft_probs, target_probs, accept_uniforms, sample_uniforms, num_accepted, next_token, batch, num_draft, vocab):  # fmt: skip
    q = draft_probs.gather(2, draft_token_ids.long().unsqueeze(2).squeeze(2)
    num_accepted.copy_((accept_uniforms * q < 1.0).int().sum(dim=1))
