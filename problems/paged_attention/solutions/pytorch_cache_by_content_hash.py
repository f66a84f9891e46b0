"""Cheat (replays a cached result): fingerprints the inputs from a few thousand sampled values
plus the sizes and, when a fingerprint comes back, copies the remembered output instead of
attending. A judge that timed the same few input sets over and over would see a copy in
microseconds.

It must gain nothing: the judge regenerates an input set (new values, same addresses) before
it is used again, so no fingerprint ever comes back and every timed call does the work, plus
the fingerprint's cost. On the H200, before that change, it was accepted at 348.7 us
(`judge selftest --quick`, 2026-11-30): the replay was not fast enough for the roofline floor.
"""

import math

import torch

_cache: dict[tuple, torch.Tensor] = {}


def _fingerprint(tensors, sizes) -> tuple:
    parts = [sizes]
    for t in tensors:
        flat = t.reshape(-1)
        step = max(1, flat.numel() // 4096)
        sample = flat[::step][:4096]
        parts.append(
            hash(sample.view(torch.int16 if sample.element_size() == 2 else torch.int32).cpu().numpy().tobytes())
        )
    return tuple(parts)


def _attend(q, k_cache, v_cache, block_table, seq_lens, num_seqs, num_heads, num_kv_heads, head_dim, block_size):
    group = num_heads // num_kv_heads
    result = torch.empty(num_seqs, num_heads, head_dim, dtype=q.dtype, device=q.device)
    lengths = seq_lens.tolist()
    for s in range(num_seqs):
        pages = block_table[s, : (lengths[s] + block_size - 1) // block_size].long()
        k = k_cache[pages].reshape(-1, num_kv_heads, head_dim)[: lengths[s]].float()
        v = v_cache[pages].reshape(-1, num_kv_heads, head_dim)[: lengths[s]].float()
        qs = q[s].float().reshape(num_kv_heads, group, head_dim)
        probs = torch.softmax(torch.einsum("hgd,lhd->hgl", qs, k) / math.sqrt(head_dim), dim=-1)
        result[s] = torch.einsum("hgl,lhd->hgd", probs, v).reshape(num_heads, head_dim).to(q.dtype)
    return result


def solve(q, k_cache, v_cache, block_table, seq_lens, out, num_seqs, num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq):  # fmt: skip
    sizes = (num_seqs, num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq)
    key = _fingerprint((q, k_cache, v_cache, block_table, seq_lens), sizes)
    hit = _cache.get(key)
    if hit is None:
        hit = _attend(
            q, k_cache, v_cache, block_table, seq_lens, num_seqs, num_heads, num_kv_heads, head_dim, block_size
        )
        _cache[key] = hit
    out.copy_(hit)
