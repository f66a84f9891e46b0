"""Wrong: no causal mask inside the chunk: every query also attends to the chunk's later tokens
(its own future). Only keys past the chunk's end are masked."""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def prefill_kernel(
    q_ptr, k_ptr, v_ptr, kc_ptr, vc_ptr, table_ptr, prefix_ptr, out_ptr,
    chunk_len, num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq, scale,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr,
):  # fmt: skip
    # One program per (sequence, block of BLOCK_M queries of its chunk, head).
    seq = tl.program_id(0)
    rows = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)  # query i of the chunk, at position prefix + i
    head = tl.program_id(2)
    kv_head = head // (num_heads // num_kv_heads)
    prefix = tl.load(prefix_ptr + seq)
    dims = tl.arange(0, BLOCK_D)
    row_ok = rows < chunk_len
    dim_ok = dims < head_dim
    tokens = (seq * chunk_len + rows).to(tl.int64)
    q_offsets = (tokens[:, None] * num_heads + head) * head_dim + dims[None, :]
    q = tl.load(q_ptr + q_offsets, mask=row_ok[:, None] & dim_ok[None, :], other=0.0)
    run_max = tl.full([BLOCK_M], -float("inf"), tl.float32)
    run_sum = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], tl.float32)
    # The cached prefix: every query sees all of it. Position p is in page
    # block_table[seq, p // block_size], at offset p % block_size.
    for start in range(0, prefix, BLOCK_N):
        pos = start + tl.arange(0, BLOCK_N)
        pos_ok = pos < prefix
        page = tl.load(table_ptr + seq * max_blocks_per_seq + pos // block_size, mask=pos_ok, other=0)
        slot = page.to(tl.int64) * block_size + pos % block_size
        kv_offsets = (slot[:, None] * num_kv_heads + kv_head) * head_dim + dims[None, :]
        kv_mask = pos_ok[:, None] & dim_ok[None, :]
        k = tl.load(kc_ptr + kv_offsets, mask=kv_mask, other=0.0)
        scores = tl.dot(q, tl.trans(k)) * scale
        scores = tl.where(pos_ok[None, :], scores, -float("inf"))
        new_max = tl.maximum(run_max, tl.max(scores, axis=1))
        alpha = tl.exp(run_max - new_max)
        p = tl.exp(scores - new_max[:, None])
        run_sum = run_sum * alpha + tl.sum(p, axis=1)
        v = tl.load(vc_ptr + kv_offsets, mask=kv_mask, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.bfloat16), v)
        run_max = new_max
    # The chunk's own keys, causally: query i sees keys 0..i of the chunk.
    end = chunk_len
    for start in range(0, end, BLOCK_N):
        keys = start + tl.arange(0, BLOCK_N)
        key_tokens = (seq * chunk_len + keys).to(tl.int64)
        kv_offsets = (key_tokens[:, None] * num_kv_heads + kv_head) * head_dim + dims[None, :]
        kv_mask = (keys[:, None] < chunk_len) & dim_ok[None, :]
        k = tl.load(k_ptr + kv_offsets, mask=kv_mask, other=0.0)
        scores = tl.dot(q, tl.trans(k)) * scale
        hidden = keys[None, :] >= chunk_len
        scores = tl.where(hidden, -float("inf"), scores)
        new_max = tl.maximum(run_max, tl.max(scores, axis=1))
        alpha = tl.exp(run_max - new_max)
        p = tl.exp(scores - new_max[:, None])
        run_sum = run_sum * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + kv_offsets, mask=kv_mask, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.bfloat16), v)
        run_max = new_max
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
    BLOCK_M, BLOCK_N = 32, 32
    grid = (num_seqs, triton.cdiv(chunk_len, BLOCK_M), num_heads)
    prefill_kernel[grid](
        q, k, v, k_cache, v_cache, block_table, prefix_lens, out,
        chunk_len, num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq, 1.0 / math.sqrt(head_dim),
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_D=max(16, triton.next_power_of_2(head_dim)),
    )  # fmt: skip
