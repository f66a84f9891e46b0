"""Trusted reference for paged decode attention (vLLM-style block table, GQA).

Runs only in the trusted process. Layouts (all contiguous, row-major):
  q        bf16 [num_seqs, num_heads, head_dim]           one decode query per sequence
  k_cache  bf16 [num_blocks, block_size, num_kv_heads, head_dim]
  v_cache  bf16 [num_blocks, block_size, num_kv_heads, head_dim]
  block_table int32 [num_seqs, max_blocks_per_seq]         page ids; entries past a sequence's
                                                           last page are valid ids, never read
  seq_lens    int32 [num_seqs]                             1 <= seq_lens[s] <= max_blocks_per_seq * block_size
  out      bf16 [num_seqs, num_heads, head_dim]
with num_blocks = num_seqs * max_blocks_per_seq + 7 (NUM_BLOCKS_FORMULA; problem.toml repeats it).
"""

from __future__ import annotations

import math

import torch

_PARAM_SALT = 0x5A17_0005
NUM_BLOCKS_FORMULA = "num_seqs * max_blocks_per_seq + 7"


def num_blocks_for(num_seqs: int, max_blocks_per_seq: int) -> int:
    return num_seqs * max_blocks_per_seq + 7


def seq_lens_for(gen: torch.Generator, num_seqs: int, max_len: int) -> torch.Tensor:
    """Lengths spread over [1, max_len] whose total is known from the sizes alone.

    Sequences come in pairs whose lengths add up to max_len + 1 (the first pair is 1 and max_len,
    so every batch of two or more holds both extremes); a lone last sequence gets any length.
    The total is therefore at least (num_seqs // 2) * (max_len + 1) + num_seqs % 2 tokens, which
    is what problem.toml's bytes formula counts as the K/V traffic a kernel cannot avoid.
    """
    lens: list[int] = []
    for pair in range(num_seqs // 2):
        first = 1 if pair == 0 else int(torch.randint(1, max_len + 1, (1,), generator=gen))
        lens += [first, max_len + 1 - first]
    if num_seqs % 2:
        lens.append(int(torch.randint(1, max_len + 1, (1,), generator=gen)))
    order = torch.randperm(num_seqs, generator=gen)
    return torch.tensor(lens, dtype=torch.int32)[order]


def generate_inputs(
    seed: int,
    device: str = "cpu",
    *,
    num_seqs: int,
    num_heads: int,
    num_kv_heads: int,
    head_dim: int,
    block_size: int,
    max_blocks_per_seq: int,
) -> dict[str, torch.Tensor]:
    if num_heads % num_kv_heads:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    num_blocks = num_blocks_for(num_seqs, max_blocks_per_seq)
    cpu = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    scale = torch.empty(3, dtype=torch.float64).uniform_(0.5, 1.5, generator=cpu).tolist()
    offset = torch.empty(3, dtype=torch.float64).uniform_(-0.2, 0.2, generator=cpu).tolist()
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))

    def draw(*shape: int, which: int) -> torch.Tensor:
        t = torch.randn(*shape, generator=gen, device=device)
        return t.mul_(scale[which]).add_(offset[which] * scale[which]).to(torch.bfloat16)

    q = draw(num_seqs, num_heads, head_dim, which=0)
    k_cache = draw(num_blocks, block_size, num_kv_heads, head_dim, which=1)
    v_cache = draw(num_blocks, block_size, num_kv_heads, head_dim, which=2)
    # Pages are a random permutation of the pool: neighbouring pages of a sequence are scattered.
    pages = torch.randperm(num_blocks, generator=cpu)[: num_seqs * max_blocks_per_seq]
    block_table = pages.to(torch.int32).reshape(num_seqs, max_blocks_per_seq)
    seq_lens = seq_lens_for(cpu, num_seqs, max_blocks_per_seq * block_size)
    return {
        "q": q,
        "k_cache": k_cache,
        "v_cache": v_cache,
        "block_table": block_table.to(device),
        "seq_lens": seq_lens.to(device),
    }


def reference(
    q: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    block_table: torch.Tensor,
    seq_lens: torch.Tensor,
    num_seqs: int,
    num_heads: int,
    num_kv_heads: int,
    head_dim: int,
    block_size: int,
    max_blocks_per_seq: int,
) -> dict[str, torch.Tensor]:
    """softmax(q k^T / sqrt(d)) v over each sequence's tokens, in fp64; head h reads kv head h // group."""
    group = num_heads // num_kv_heads
    out = torch.empty(num_seqs, num_heads, head_dim, dtype=torch.float64, device=q.device)
    lens = seq_lens.tolist()
    table = block_table.long()
    for s in range(num_seqs):
        length = lens[s]
        pages = table[s, : -(-length // block_size)]
        k = k_cache[pages].reshape(-1, num_kv_heads, head_dim)[:length].double()  # [L, kvh, d]
        v = v_cache[pages].reshape(-1, num_kv_heads, head_dim)[:length].double()
        qs = q[s].double().reshape(num_kv_heads, group, head_dim)
        scores = torch.einsum("hgd,lhd->hgl", qs, k) / math.sqrt(head_dim)
        probs = torch.softmax(scores, dim=-1)
        out[s] = torch.einsum("hgl,lhd->hgd", probs, v).reshape(num_heads, head_dim)
    return {"out": out}


def baseline(
    q: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    block_table: torch.Tensor,
    seq_lens: torch.Tensor,
    num_seqs: int,
    num_heads: int,
    num_kv_heads: int,
    head_dim: int,
    block_size: int,
    max_blocks_per_seq: int,
) -> dict[str, torch.Tensor]:
    """Plain PyTorch: gather every page of every sequence, mask past the length, fp32 softmax.

    This is what a framework does without a paged kernel; the point speedups are measured from.
    """
    group = num_heads // num_kv_heads
    max_len = max_blocks_per_seq * block_size
    k = k_cache[block_table.long()].reshape(num_seqs, max_len, num_kv_heads, head_dim)
    v = v_cache[block_table.long()].reshape(num_seqs, max_len, num_kv_heads, head_dim)
    qg = q.reshape(num_seqs, num_kv_heads, group, head_dim).float()
    scores = torch.einsum("shgd,slhd->shgl", qg, k.float()) / math.sqrt(head_dim)
    live = torch.arange(max_len, device=q.device)[None, :] < seq_lens[:, None]
    scores = scores.masked_fill(~live[:, None, None, :], float("-inf"))
    probs = torch.softmax(scores, dim=-1)
    out = torch.einsum("shgl,slhd->shgd", probs, v.float())
    return {"out": out.reshape(num_seqs, num_heads, head_dim).to(torch.bfloat16)}
