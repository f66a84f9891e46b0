"""Wrong answer: the right nucleus, but the uniform walks it in ranked order (largest probability
first) instead of in token order."""

import torch


def solve(probs, top_p, uniforms, token_ids, batch, vocab):
    sorted_probs, order = torch.sort(probs, dim=1, descending=True, stable=True)
    csum = torch.cumsum(sorted_probs, dim=1)
    k = (csum < top_p[:, None]).sum(dim=1, keepdim=True) + 1
    mass = csum.gather(1, k - 1)
    rank = (csum <= uniforms[:, None] * mass).sum(dim=1, keepdim=True)
    token_ids.copy_(order.gather(1, rank).squeeze(1))
