"""Rejected: torch's scaled_dot_product_attention inside a Triton submission; the source scan
refuses it."""

import torch
import triton


def solve(q, k, v, k_cache, v_cache, block_table, prefix_lens, out, num_seqs, chunk_len, num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq):  # fmt: skip
    for s, prefix in enumerate(prefix_lens.tolist()):
        rows = slice(s * chunk_len, (s + 1) * chunk_len)
        pages = block_table[s, : triton.cdiv(prefix, block_size)].long()
        keys = torch.cat([k_cache[pages].flatten(0, 1)[:prefix], k[rows]]).transpose(0, 1)
        values = torch.cat([v_cache[pages].flatten(0, 1)[:prefix], v[rows]]).transpose(0, 1)
        position = torch.arange(prefix + chunk_len, device=q.device)
        visible = position[None, :] <= prefix + torch.arange(chunk_len, device=q.device)[:, None]
        attended = torch.nn.functional.scaled_dot_product_attention(
            q[rows].transpose(0, 1)[None], keys[None], values[None], attn_mask=visible, enable_gqa=True
        )
        out[rows] = attended[0].transpose(0, 1)
