"""Accepted: the PyTorch starter completed as its comment says: per (batch, head), the fp32 scores
q k^T / sqrt(d), the future keys set to -inf when mask_mode == 2, softmax in fp32, the weighted sum
of v in fp32, written into out as bf16."""

import math

import torch


def solve(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    out: torch.Tensor,
    batch: int,
    heads: int,
    seq: int,
    head_dim: int,
    mask_mode: int,
) -> None:
    future = torch.ones(seq, seq, dtype=torch.bool, device=q.device).triu(1)
    for b in range(batch):
        for h in range(heads):
            scores = (q[b, h].float() @ k[b, h].float().T) / math.sqrt(head_dim)
            if mask_mode == 2:
                scores = scores.masked_fill(future, float("-inf"))
            out[b, h] = (torch.softmax(scores, dim=-1) @ v[b, h].float()).to(out.dtype)
