"""Wrong answer (output partly unwritten): an off-by-one in the sequence loop leaves the last
sequence's output holding the judge's NaN poison."""

import math

import torch


def solve(q, k_cache, v_cache, block_table, seq_lens, out, num_seqs, num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq):  # fmt: skip
    group = num_heads // num_kv_heads
    lengths = seq_lens.tolist()
    for s in range(num_seqs - 1):
        length = lengths[s]
        pages = block_table[s, : (length + block_size - 1) // block_size].long()
        k = k_cache[pages].reshape(-1, num_kv_heads, head_dim)[:length].float()
        v = v_cache[pages].reshape(-1, num_kv_heads, head_dim)[:length].float()
        qs = q[s].float().reshape(num_kv_heads, group, head_dim)
        probs = torch.softmax(torch.einsum("hgd,lhd->hgl", qs, k) / math.sqrt(head_dim), dim=-1)
        out[s] = torch.einsum("hgl,lhd->hgd", probs, v).reshape(num_heads, head_dim).to(out.dtype)
