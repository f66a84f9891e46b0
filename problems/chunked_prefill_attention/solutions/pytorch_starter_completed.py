import math

import torch


def solve(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    block_table: torch.Tensor,
    prefix_lens: torch.Tensor,
    out: torch.Tensor,
    num_seqs: int,
    chunk_len: int,
    num_heads: int,
    num_kv_heads: int,
    head_dim: int,
    block_size: int,
    max_blocks_per_seq: int,
) -> None:
    group = num_heads // num_kv_heads
    for s, prefix in enumerate(prefix_lens.tolist()):
        rows = slice(s * chunk_len, (s + 1) * chunk_len)
        pages = block_table[s, : -(-prefix // block_size)].long()
        keys = torch.cat([k_cache[pages].flatten(0, 1)[:prefix], k[rows]]).float()  # [L, kvh, d]
        values = torch.cat([v_cache[pages].flatten(0, 1)[:prefix], v[rows]]).float()
        keys = keys.repeat_interleave(group, dim=1).transpose(0, 1)  # [heads, L, d]
        values = values.repeat_interleave(group, dim=1).transpose(0, 1)
        queries = q[rows].float().transpose(0, 1)  # [heads, chunk, d]
        scores = queries @ keys.transpose(1, 2) / math.sqrt(head_dim)
        position = torch.arange(prefix + chunk_len, device=q.device)
        future = position[None, :] > prefix + torch.arange(chunk_len, device=q.device)[:, None]
        probs = torch.softmax(scores.masked_fill(future, -math.inf), dim=-1)
        out[rows] = (probs @ values).transpose(0, 1).to(torch.bfloat16)
