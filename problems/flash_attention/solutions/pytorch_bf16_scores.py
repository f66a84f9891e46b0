"""Wrong: the scores computed as a bf16 matrix product (torch.matmul on bf16 tensors returns
bf16), then the softmax in fp32. Rounding a score to bf16 costs up to 2^-9 of its size: scores of
magnitude 100 or more, as the judge draws them, move by 0.25 and more, and exp() turns that into
errors of 25% in the probabilities."""

import math

import torch


def solve(q, k, v, out, batch, heads, seq, head_dim, mask_mode):  # fmt: skip
    future = torch.ones(seq, seq, dtype=torch.bool, device=q.device).triu(1)
    for b in range(batch):
        for h in range(heads):
            scores = (q[b, h] @ k[b, h].T).float() / math.sqrt(head_dim)
            if mask_mode == 2:
                scores = scores.masked_fill(future, float("-inf"))
            out[b, h] = (torch.softmax(scores, dim=-1) @ v[b, h].float()).to(out.dtype)
