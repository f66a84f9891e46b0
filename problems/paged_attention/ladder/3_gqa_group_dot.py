"""Rung 3: one program per (sequence, KV head) instead of per query head. The program loads the
queries of the whole GQA group (padded to 16 rows, the smallest tl.dot tile), walks the sequence
64 tokens at a time, and computes the group's scores with one tl.dot (Q K^T) and its output with
another (P V, P in bf16), with an online softmax per query row. Each K/V byte is read once for
all the heads of its group."""

import math

import torch
import triton
import triton.language as tl

TILE = 64
LOG2E = 1.4426950408889634


@triton.jit
def _attend_group(
    q_ptr, k_ptr, v_ptr, table_ptr, lens_ptr, out_ptr,
    num_heads, num_kv_heads, head_dim, block_size, max_blocks, qk_scale,
    GROUP: tl.constexpr, GROUP_PAD: tl.constexpr, D_PAD: tl.constexpr, TILE: tl.constexpr,
):  # fmt: skip
    seq = tl.program_id(0)
    kv_head = tl.program_id(1)
    length = tl.load(lens_ptr + seq)
    g = tl.arange(0, GROUP_PAD)
    d = tl.arange(0, D_PAD)
    g_ok = g < GROUP
    d_ok = d < head_dim
    # The group's query heads are kv_head * GROUP ... kv_head * GROUP + GROUP - 1.
    q_offsets = (seq * num_heads + kv_head * GROUP + g)[:, None] * head_dim + d[None, :]
    q_mask = g_ok[:, None] & d_ok[None, :]
    q = tl.load(q_ptr + q_offsets, mask=q_mask, other=0.0)

    # Scores are kept in the exp2 domain: qk_scale = log2(e) / sqrt(head_dim).
    run_max = tl.full([GROUP_PAD], -float("inf"), tl.float32)
    run_sum = tl.zeros([GROUP_PAD], tl.float32)
    acc = tl.zeros([GROUP_PAD, D_PAD], tl.float32)
    tokens = tl.arange(0, TILE)
    for t0 in range(0, length, TILE):
        tok = t0 + tokens
        valid = tok < length
        page = tl.load(table_ptr + seq * max_blocks + tok // block_size, mask=valid, other=0)
        rows = (page.to(tl.int64) * block_size + tok % block_size) * num_kv_heads + kv_head
        kv_offsets = rows[:, None] * head_dim + d[None, :]
        kv_mask = valid[:, None] & d_ok[None, :]
        k = tl.load(k_ptr + kv_offsets, mask=kv_mask, other=0.0)
        scores = tl.dot(q, tl.trans(k)) * qk_scale  # [GROUP_PAD, TILE], fp32
        scores = tl.where(valid[None, :], scores, -float("inf"))
        # Every tile has at least one valid token, so new_max is finite for every row.
        new_max = tl.maximum(run_max, tl.max(scores, axis=1))
        alpha = tl.exp2(run_max - new_max)
        p = tl.exp2(scores - new_max[:, None])
        run_sum = run_sum * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + kv_offsets, mask=kv_mask, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.bfloat16), v)
        run_max = new_max
    out = acc / run_sum[:, None]
    tl.store(out_ptr + q_offsets, out.to(tl.bfloat16), mask=q_mask)


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
    _attend_group[(num_seqs, num_kv_heads)](
        q, k_cache, v_cache, block_table, seq_lens, out,
        num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq, LOG2E / math.sqrt(head_dim),
        GROUP=group, GROUP_PAD=max(16, triton.next_power_of_2(group)),
        D_PAD=max(16, triton.next_power_of_2(head_dim)), TILE=TILE, num_warps=4,
    )  # fmt: skip
