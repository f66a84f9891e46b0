"""Trusted reference for chunked-prefill attention over a paged KV cache (GQA, bf16).

Runs only in the trusted process. Layouts (contiguous, row-major), tokens = num_seqs * chunk_len:
  q            bf16  [tokens, num_heads, head_dim]      the chunk's queries, sequence by sequence
  k, v         bf16  [tokens, num_kv_heads, head_dim]   the chunk's own keys and values
  k_cache      bf16  [num_blocks, block_size, num_kv_heads, head_dim]   the cached prefixes
  v_cache      bf16  [num_blocks, block_size, num_kv_heads, head_dim]
  block_table  int32 [num_seqs, max_blocks_per_seq]     page ids; entries past a prefix's last
                                                        page are valid ids, never read
  prefix_lens  int32 [num_seqs]                         0 <= prefix_lens[s] <= max_blocks_per_seq * block_size
  out          bf16  [tokens, num_heads, head_dim]
with num_blocks = num_seqs * max_blocks_per_seq + 7. Query i of sequence s (row s * chunk_len + i,
position prefix_lens[s] + i) attends to the prefix positions 0 .. prefix_lens[s] - 1 (position p at
k_cache[block_table[s, p // block_size], p % block_size]) and to the chunk's keys 0 .. i; head h
reads kv head h // (num_heads // num_kv_heads); scores are q . k / sqrt(head_dim).
"""

from __future__ import annotations

import math

import torch

_PARAM_SALT = 0x5A17_0018
_SCORES = 1 << 25  # float64 scores formed at a time (256 MiB): query rows are taken in blocks


def num_blocks_for(num_seqs: int, max_blocks_per_seq: int) -> int:
    return num_seqs * max_blocks_per_seq + 7


def prefix_lens_for(gen: torch.Generator, num_seqs: int, max_prefix: int) -> torch.Tensor:
    """Prefix lengths in [0, max_prefix] whose total the sizes alone fix.

    Sequences come in pairs whose prefixes add up to max_prefix; the first pair is 0 and
    max_prefix (a prompt's first chunk, with nothing cached, beside the longest prefix), and a
    lone last sequence gets max_prefix. The total is ((num_seqs + 1) // 2) * max_prefix, which is
    what problem.toml's cost model counts.
    """
    lens: list[int] = []
    for pair in range(num_seqs // 2):
        first = 0 if pair == 0 else int(torch.randint(0, max_prefix + 1, (1,), generator=gen))
        lens += [first, max_prefix - first]
    if num_seqs % 2:
        lens.append(max_prefix)
    order = torch.randperm(num_seqs, generator=gen)
    return torch.tensor(lens, dtype=torch.int32)[order]


def generate_inputs(
    seed: int,
    device: str = "cpu",
    *,
    num_seqs: int,
    chunk_len: int,
    num_heads: int,
    num_kv_heads: int,
    head_dim: int,
    block_size: int,
    max_blocks_per_seq: int,
) -> dict[str, torch.Tensor]:
    """q = sq N(0, 1) + u, keys (chunk and cache) = sk N(0, 1) + ck u, values = sv N(0, 1) + a
    small offset, in bf16.

    As in flash_attention, u is one N(0, 1) vector per case shared by the queries and every key:
    its part of q . k / sqrt(d) is a constant of the query row of magnitude 120 to 160 (the sign
    drawn), which softmax ignores and exp without the row's maximum does not survive. It spreads
    the scores across keys only by about sk, so attention stays soft: many keys, prefix and chunk
    alike, carry weight, and a key wrongly hidden or shown moves the output.
    """
    if num_heads % num_kv_heads:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    num_blocks = num_blocks_for(num_seqs, max_blocks_per_seq)
    cpu = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    sq, sk, sv = torch.empty(3, dtype=torch.float64).uniform_(0.5, 1.5, generator=cpu).tolist()
    ov = float(torch.empty(1, dtype=torch.float64).uniform_(-0.2, 0.2, generator=cpu))
    shift = float(torch.empty(1, dtype=torch.float64).uniform_(120.0, 160.0, generator=cpu))
    sign = 1.0 if bool(torch.randint(0, 2, (1,), generator=cpu)) else -1.0
    u = torch.randn(head_dim, generator=cpu, dtype=torch.float64)
    ck = sign * shift * math.sqrt(head_dim) / float(u @ u)  # u . (ck u) / sqrt(d) = +-shift
    pages = torch.randperm(num_blocks, generator=cpu)[: num_seqs * max_blocks_per_seq]
    block_table = pages.to(torch.int32).reshape(num_seqs, max_blocks_per_seq)
    prefix_lens = prefix_lens_for(cpu, num_seqs, max_blocks_per_seq * block_size)

    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    uf = u.to(device=device, dtype=torch.float32)
    tokens = num_seqs * chunk_len

    def draw(*shape: int, scale: float, add: torch.Tensor | float) -> torch.Tensor:
        return torch.randn(*shape, generator=gen, device=device).mul_(scale).add_(add).to(torch.bfloat16)

    return {
        "q": draw(tokens, num_heads, head_dim, scale=sq, add=uf),
        "k": draw(tokens, num_kv_heads, head_dim, scale=sk, add=uf * ck),
        "v": draw(tokens, num_kv_heads, head_dim, scale=sv, add=ov * sv),
        "k_cache": draw(num_blocks, block_size, num_kv_heads, head_dim, scale=sk, add=uf * ck),
        "v_cache": draw(num_blocks, block_size, num_kv_heads, head_dim, scale=sv, add=ov * sv),
        "block_table": block_table.to(device),
        "prefix_lens": prefix_lens.to(device),
    }


def gather_keys(cache: torch.Tensor, chunk: torch.Tensor, pages: torch.Tensor, prefix: int) -> torch.Tensor:
    """The keys (or values) of one sequence in position order: its prefix read page by page
    from the cache, then the chunk's own. [prefix + chunk_len, num_kv_heads, head_dim]"""
    block_size = cache.shape[1]
    cached = cache[pages[: -(-prefix // block_size)].long()].flatten(0, 1)[:prefix]
    return torch.cat([cached, chunk])


def reference(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    block_table: torch.Tensor,
    prefix_lens: torch.Tensor,
    num_seqs: int,
    chunk_len: int,
    num_heads: int,
    num_kv_heads: int,
    head_dim: int,
    block_size: int,
    max_blocks_per_seq: int,
) -> dict[str, torch.Tensor]:
    """softmax(q k^T / sqrt(d) + causal mask at the prefix's offset) v in float64, a block of
    query rows of one kv head's group at a time."""
    group = num_heads // num_kv_heads
    out = torch.empty(num_seqs * chunk_len, num_heads, head_dim, dtype=torch.float64, device=q.device)
    scale = 1.0 / math.sqrt(head_dim)
    for s, prefix in enumerate(prefix_lens.tolist()):
        rows = slice(s * chunk_len, (s + 1) * chunk_len)
        keys = gather_keys(k_cache, k[rows], block_table[s], prefix).double()  # [L, kvh, d]
        values = gather_keys(v_cache, v[rows], block_table[s], prefix).double()
        length = prefix + chunk_len
        position = torch.arange(length, device=q.device)
        step = max(1, min(chunk_len, _SCORES // (group * length)))
        for h in range(num_kv_heads):
            qs = q[rows, h * group : (h + 1) * group].double()  # [chunk, group, d]
            for r0 in range(0, chunk_len, step):
                r1 = min(chunk_len, r0 + step)
                scores = torch.einsum("igd,ld->gil", qs[r0:r1], keys[:, h]) * scale
                future = position[None, :] > prefix + torch.arange(r0, r1, device=q.device)[:, None]
                scores.masked_fill_(future, -math.inf)
                probs = torch.softmax(scores, dim=-1)
                out[s * chunk_len + r0 : s * chunk_len + r1, h * group : (h + 1) * group] = torch.einsum(
                    "gil,ld->igd", probs, values[:, h]
                )
    return {"out": out}


def baseline(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    block_table: torch.Tensor,
    prefix_lens: torch.Tensor,
    num_seqs: int,
    chunk_len: int,
    num_heads: int,
    num_kv_heads: int,
    head_dim: int,
    block_size: int,
    max_blocks_per_seq: int,
) -> dict[str, torch.Tensor]:
    """Plain PyTorch, as a framework without a paged prefill kernel does it: per sequence, the
    prefix's pages gathered and joined to the chunk's keys and values, then torch's fused
    attention with the causal mask at the prefix's offset as a boolean mask (its is_causal aligns
    the diagonal to the first key, not to the prefix's end) and the kv heads shared by group.
    The point a submission's speedup is measured from."""
    out = torch.empty_like(q)
    for s, prefix in enumerate(prefix_lens.tolist()):
        rows = slice(s * chunk_len, (s + 1) * chunk_len)
        keys = gather_keys(k_cache, k[rows], block_table[s], prefix).transpose(0, 1)  # [kvh, L, d]
        values = gather_keys(v_cache, v[rows], block_table[s], prefix).transpose(0, 1)
        position = torch.arange(prefix + chunk_len, device=q.device)
        visible = position[None, :] <= prefix + torch.arange(chunk_len, device=q.device)[:, None]
        attended = torch.nn.functional.scaled_dot_product_attention(
            q[rows].transpose(0, 1)[None], keys[None], values[None], attn_mask=visible, enable_gqa=True
        )
        out[rows] = attended[0].transpose(0, 1)
    return {"out": out}
