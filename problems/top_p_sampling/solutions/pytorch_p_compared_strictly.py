"""Wrong answer: the nucleus ends at the first cumulative sum strictly above top_p (c_k > p instead
of c_k >= p): where a cumulative sum equals top_p exactly, one token too many."""

import torch


def solve(probs, top_p, uniforms, token_ids, batch, vocab):
    sorted_probs, order = torch.sort(probs, dim=1, descending=True, stable=True)
    csum = torch.cumsum(sorted_probs, dim=1)
    k = ((csum <= top_p[:, None]).sum(dim=1, keepdim=True) + 1).clamp(max=vocab)
    in_prefix = torch.arange(vocab, device=probs.device)[None, :] < k
    members = torch.zeros_like(in_prefix).scatter_(1, order, in_prefix)
    running = torch.cumsum(torch.where(members, probs, 0.0), dim=1)
    hit = members & (running > uniforms[:, None] * running[:, -1:])
    token_ids.copy_(hit.int().argmax(dim=1))
