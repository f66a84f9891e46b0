"""Expert Triton kernel for chunked-prefill attention over a paged KV cache.

- The query heads that share a kv head are packed into one tile: a program takes BLOCK_R rows of
  the flattened (query, head of the group) list of one kv head, so every K and V tile (from the
  cache or from the chunk) is loaded once for the whole group instead of once per head: with 32
  query heads on 8 kv heads that is a quarter of the loads, and the tiles of tl.dot are larger.
- Softmax in the exp2 domain, 1 / sqrt(d) and log2(e) folded into one multiplier of the scores.
- The prefix needs no mask but at its last, partial block; the chunk's keys past the tile's last
  query are never visited (the causal half of the chunk is skipped), and only blocks that cross
  the diagonal are masked.
- Programs are launched longest first: the query tiles late in the chunk see the most keys.
"""

import math

import torch
import triton
import triton.language as tl

LOG2E = 1.4426950408889634


@triton.jit
def _attend(q, k, v, scores_mult, run_max, run_sum, acc, hidden, MASKED: tl.constexpr):
    scores = tl.dot(q, tl.trans(k)) * scores_mult
    if MASKED:
        scores = tl.where(hidden, -float("inf"), scores)
    new_max = tl.maximum(run_max, tl.max(scores, axis=1))
    alpha = tl.exp2(run_max - new_max)
    p = tl.exp2(scores - new_max[:, None])
    run_sum = run_sum * alpha + tl.sum(p, axis=1)
    acc = acc * alpha[:, None] + tl.dot(p.to(tl.bfloat16), v)
    return new_max, run_sum, acc


@triton.jit
def prefill_kernel(
    q_ptr, k_ptr, v_ptr, kc_ptr, vc_ptr, table_ptr, prefix_ptr, out_ptr,
    chunk_len, num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq, scores_mult, row_tiles,
    GROUP: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr,
):  # fmt: skip
    tile = row_tiles - 1 - tl.program_id(0)  # longest first
    kv_head = tl.program_id(1)
    seq = tl.program_id(2)
    prefix = tl.load(prefix_ptr + seq)
    r = tile * BLOCK_R + tl.arange(0, BLOCK_R)
    query = r // GROUP  # index in the chunk
    head = kv_head * GROUP + r % GROUP
    dims = tl.arange(0, BLOCK_D)
    row_ok = query < chunk_len
    dim_ok = dims < head_dim
    q_offsets = ((seq * chunk_len + query).to(tl.int64)[:, None] * num_heads + head[:, None]) * head_dim + dims[None, :]
    q = tl.load(q_ptr + q_offsets, mask=row_ok[:, None] & dim_ok[None, :], other=0.0)
    run_max = tl.full([BLOCK_R], -float("inf"), tl.float32)
    run_sum = tl.zeros([BLOCK_R], tl.float32)
    acc = tl.zeros([BLOCK_R, BLOCK_D], tl.float32)
    table = table_ptr + seq * max_blocks_per_seq
    offs_n = tl.arange(0, BLOCK_N)

    full_end = (prefix // BLOCK_N) * BLOCK_N
    for start in range(0, prefix, BLOCK_N):
        pos = start + offs_n
        pos_ok = pos < prefix
        page = tl.load(table + pos // block_size, mask=pos_ok, other=0)
        slot = page.to(tl.int64) * block_size + pos % block_size
        kv_offsets = (slot[:, None] * num_kv_heads + kv_head) * head_dim + dims[None, :]
        kv_mask = pos_ok[:, None] & dim_ok[None, :]
        k = tl.load(kc_ptr + kv_offsets, mask=kv_mask, other=0.0)
        v = tl.load(vc_ptr + kv_offsets, mask=kv_mask, other=0.0)
        if start < full_end:
            run_max, run_sum, acc = _attend(q, k, v, scores_mult, run_max, run_sum, acc, pos_ok[None, :], False)
        else:
            hidden = (pos >= prefix)[None, :]
            run_max, run_sum, acc = _attend(q, k, v, scores_mult, run_max, run_sum, acc, hidden, True)

    first_query = (tile * BLOCK_R) // GROUP
    last_query = tl.minimum(chunk_len - 1, (tile * BLOCK_R + BLOCK_R - 1) // GROUP)
    for start in range(0, last_query + 1, BLOCK_N):
        keys = start + offs_n
        key_tokens = (seq * chunk_len + keys).to(tl.int64)
        kv_offsets = (key_tokens[:, None] * num_kv_heads + kv_head) * head_dim + dims[None, :]
        kv_mask = (keys[:, None] < chunk_len) & dim_ok[None, :]
        k = tl.load(k_ptr + kv_offsets, mask=kv_mask, other=0.0)
        v = tl.load(v_ptr + kv_offsets, mask=kv_mask, other=0.0)
        if start + BLOCK_N - 1 <= first_query:  # every key of the block is at or before every query
            run_max, run_sum, acc = _attend(q, k, v, scores_mult, run_max, run_sum, acc, keys[None, :], False)
        else:
            hidden = keys[None, :] > query[:, None]
            run_max, run_sum, acc = _attend(q, k, v, scores_mult, run_max, run_sum, acc, hidden, True)

    out = acc / run_sum[:, None]
    tl.store(out_ptr + q_offsets, out.to(tl.bfloat16), mask=row_ok[:, None] & dim_ok[None, :])


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
    block_d = max(16, triton.next_power_of_2(head_dim))
    block_r = 128 if block_d <= 64 else 64
    block_n = 64
    row_tiles = triton.cdiv(chunk_len * group, block_r)
    grid = (row_tiles, num_kv_heads, num_seqs)
    prefill_kernel[grid](
        q, k, v, k_cache, v_cache, block_table, prefix_lens, out,
        chunk_len, num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq, LOG2E / math.sqrt(head_dim),
        row_tiles,
        GROUP=group, BLOCK_R=block_r, BLOCK_N=block_n, BLOCK_D=block_d, num_warps=4 if block_d <= 64 else 8,
        num_stages=3 if block_d <= 128 else 2,
    )  # fmt: skip
