"""Accepted: the query heads that share a kv head packed into one tile. A program takes 64 rows
of the flattened (query, head of the group) list of one kv head and one sequence, so each K and V
tile, from the cache through the block table or from the chunk, is loaded once for the whole
group; online softmax in the exp2 domain (1 / sqrt(d) and log2(e) folded into one multiplier)."""

import math

import torch
import triton
import triton.language as tl

LOG2E = 1.4426950408889634


@triton.jit
def prefill_kernel(
    q_ptr, k_ptr, v_ptr, kc_ptr, vc_ptr, table_ptr, prefix_ptr, out_ptr,
    chunk_len, num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq, scores_mult,
    GROUP: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr,
):  # fmt: skip
    tile = tl.program_id(0)
    kv_head = tl.program_id(1)
    seq = tl.program_id(2)
    prefix = tl.load(prefix_ptr + seq)
    r = tile * BLOCK_R + tl.arange(0, BLOCK_R)
    query = r // GROUP
    head = kv_head * GROUP + r % GROUP
    dims = tl.arange(0, BLOCK_D)
    row_ok = query < chunk_len
    dim_ok = dims < head_dim
    q_offsets = ((seq * chunk_len + query).to(tl.int64)[:, None] * num_heads + head[:, None]) * head_dim + dims[None, :]
    q = tl.load(q_ptr + q_offsets, mask=row_ok[:, None] & dim_ok[None, :], other=0.0)
    run_max = tl.full([BLOCK_R], -float("inf"), tl.float32)
    run_sum = tl.zeros([BLOCK_R], tl.float32)
    acc = tl.zeros([BLOCK_R, BLOCK_D], tl.float32)
    last_query = tl.minimum(chunk_len - 1, (tile * BLOCK_R + BLOCK_R - 1) // GROUP)
    # Positions 0 .. prefix - 1 from the cache, then prefix .. prefix + last_query from the chunk.
    for start in range(0, prefix + last_query + 1, BLOCK_N):
        pos = start + tl.arange(0, BLOCK_N)
        cached = pos < prefix
        page = tl.load(table_ptr + seq * max_blocks_per_seq + pos // block_size, mask=cached, other=0)
        slot = page.to(tl.int64) * block_size + pos % block_size
        token = (seq * chunk_len + pos - prefix).to(tl.int64)
        in_chunk = (pos >= prefix) & (pos - prefix < chunk_len)
        cache_offsets = (slot[:, None] * num_kv_heads + kv_head) * head_dim + dims[None, :]
        chunk_offsets = (token[:, None] * num_kv_heads + kv_head) * head_dim + dims[None, :]
        k = tl.load(kc_ptr + cache_offsets, mask=cached[:, None] & dim_ok[None, :], other=0.0)
        k += tl.load(k_ptr + chunk_offsets, mask=in_chunk[:, None] & dim_ok[None, :], other=0.0)
        scores = tl.dot(q, tl.trans(k)) * scores_mult
        hidden = (pos[None, :] > prefix + query[:, None]) | ~(cached | in_chunk)[None, :]
        scores = tl.where(hidden, -float("inf"), scores)
        new_max = tl.maximum(run_max, tl.max(scores, axis=1))
        alpha = tl.exp2(run_max - new_max)
        p = tl.exp2(scores - new_max[:, None])
        run_sum = run_sum * alpha + tl.sum(p, axis=1)
        v = tl.load(vc_ptr + cache_offsets, mask=cached[:, None] & dim_ok[None, :], other=0.0)
        v += tl.load(v_ptr + chunk_offsets, mask=in_chunk[:, None] & dim_ok[None, :], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.bfloat16), v)
        run_max = new_max
    out = acc / run_sum[:, None]
    tl.store(out_ptr + q_offsets, out.to(tl.bfloat16), mask=row_ok[:, None] & dim_ok[None, :])


def solve(q, k, v, k_cache, v_cache, block_table, prefix_lens, out, num_seqs, chunk_len, num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq):  # fmt: skip
    group = num_heads // num_kv_heads
    BLOCK_R, BLOCK_N = 64, 32
    grid = (triton.cdiv(chunk_len * group, BLOCK_R), num_kv_heads, num_seqs)
    prefill_kernel[grid](
        q, k, v, k_cache, v_cache, block_table, prefix_lens, out,
        chunk_len, num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq,
        LOG2E / math.sqrt(head_dim),
        GROUP=group, BLOCK_R=BLOCK_R, BLOCK_N=BLOCK_N, BLOCK_D=max(16, triton.next_power_of_2(head_dim)),
    )  # fmt: skip
