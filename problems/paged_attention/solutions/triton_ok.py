"""Accepted: one program per (sequence, query head), 64 tokens per step, fp32 dot products by
broadcasting (no tensor cores), online softmax over the steps. Simple and correct; it reads each
K/V row once per query head, so GQA groups re-read the same pages."""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def attention_kernel(
    q_ptr, k_ptr, v_ptr, table_ptr, lens_ptr, out_ptr,
    num_heads, num_kv_heads, head_dim, block_size, max_blocks, scale,
    D_PAD: tl.constexpr, TILE: tl.constexpr,
):  # fmt: skip
    seq = tl.program_id(0)
    head = tl.program_id(1)
    kv_head = head // (num_heads // num_kv_heads)
    d = tl.arange(0, D_PAD)
    d_ok = d < head_dim
    length = tl.load(lens_ptr + seq)
    q = tl.load(q_ptr + (seq * num_heads + head) * head_dim + d, mask=d_ok, other=0.0).to(tl.float32)
    run_max = -float("inf")
    run_sum = 0.0
    acc = tl.zeros([D_PAD], dtype=tl.float32)
    for t0 in range(0, length, TILE):
        t = t0 + tl.arange(0, TILE)
        valid = t < length
        page = tl.load(table_ptr + seq * max_blocks + t // block_size, mask=valid, other=0)
        rows = (page.to(tl.int64) * block_size + t % block_size) * num_kv_heads + kv_head
        offsets = rows[:, None] * head_dim + d[None, :]
        mask = valid[:, None] & d_ok[None, :]
        k = tl.load(k_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
        scores = tl.where(valid, tl.sum(k * q[None, :], axis=1) * scale, -float("inf"))
        new_max = tl.maximum(run_max, tl.max(scores, axis=0))
        alpha = tl.exp(run_max - new_max)
        p = tl.exp(scores - new_max)
        run_sum = run_sum * alpha + tl.sum(p, axis=0)
        v = tl.load(v_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
        acc = acc * alpha + tl.sum(p[:, None] * v, axis=0)
        run_max = new_max
    tl.store(out_ptr + (seq * num_heads + head) * head_dim + d, (acc / run_sum).to(tl.bfloat16), mask=d_ok)


def solve(q, k_cache, v_cache, block_table, seq_lens, out, num_seqs, num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq):  # fmt: skip
    attention_kernel[(num_seqs, num_heads)](
        q, k_cache, v_cache, block_table, seq_lens, out,
        num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq, 1.0 / math.sqrt(head_dim),
        D_PAD=triton.next_power_of_2(head_dim), TILE=64,
    )  # fmt: skip
