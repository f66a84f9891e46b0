"""Accepted: the PyTorch starter completed as its comment says: for each sequence, its pages
gathered through the block table and cut to its length, each K/V head repeated for its group of
query heads, scores and softmax in fp32, the weighted sum of V written into out in bf16."""

import math

import torch


def solve(
    q: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    block_table: torch.Tensor,
    seq_lens: torch.Tensor,
    out: torch.Tensor,
    num_seqs: int,
    num_heads: int,
    num_kv_heads: int,
    head_dim: int,
    block_size: int,
    max_blocks_per_seq: int,
) -> None:
    group = num_heads // num_kv_heads
    for seq in range(num_seqs):
        length = int(seq_lens[seq])
        pages = block_table[seq].long()
        k = k_cache[pages].reshape(-1, num_kv_heads, head_dim)[:length].float()  # (length, kv_heads, dim)
        v = v_cache[pages].reshape(-1, num_kv_heads, head_dim)[:length].float()
        k = k.repeat_interleave(group, dim=1).transpose(0, 1)  # (heads, length, dim)
        v = v.repeat_interleave(group, dim=1).transpose(0, 1)
        scores = (k @ q[seq].float().unsqueeze(-1)).squeeze(-1) / math.sqrt(head_dim)  # (heads, length)
        probs = torch.softmax(scores, dim=-1)
        out[seq] = (probs.unsqueeze(1) @ v).squeeze(1).to(out.dtype)
