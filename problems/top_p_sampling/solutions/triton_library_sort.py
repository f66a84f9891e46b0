"""Rejected: the nucleus by torch.sort and torch.cumsum and the draw by torch.searchsorted in a
Triton submission: forbidden in the source."""

import torch


def solve(probs, top_p, uniforms, token_ids, batch, vocab):
    sorted_probs, order = torch.sort(probs, dim=1, descending=True, stable=True)
    csum = torch.cumsum(sorted_probs, dim=1)
    k = (csum < top_p[:, None]).sum(dim=1, keepdim=True) + 1
    in_prefix = torch.arange(vocab, device=probs.device)[None, :] < k
    members = torch.zeros_like(in_prefix).scatter_(1, order, in_prefix)
    running = torch.cumsum(probs * members, dim=1)
    target = (uniforms * running[:, -1])[:, None]
    token_ids.copy_(torch.searchsorted(running, target, right=True).squeeze(1))
