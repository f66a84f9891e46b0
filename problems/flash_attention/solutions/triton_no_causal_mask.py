"""Wrong: ignores mask_mode and attends to every key: with the causal mask (mask_mode = 2) each
query also sees the future keys, and every row but the last is wrong."""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def attention_kernel(
    q_ptr, k_ptr, v_ptr, out_ptr, seq, mask_mode, qk_scale,
    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):  # fmt: skip
    block = tl.program_id(0)
    head = tl.program_id(1)
    base = head.to(tl.int64) * seq * HEAD_DIM
    rows = block * BLOCK_M + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + base + rows[:, None] * HEAD_DIM + dims[None, :], mask=rows[:, None] < seq, other=0.0)
    run_max = tl.full([BLOCK_M], -float("inf"), tl.float32)
    run_sum = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    end = seq
    for start in range(0, end, BLOCK_N):
        keys = start + tl.arange(0, BLOCK_N)
        kv_offsets = base + keys[:, None] * HEAD_DIM + dims[None, :]
        k = tl.load(k_ptr + kv_offsets, mask=keys[:, None] < seq, other=0.0)
        scores = tl.dot(q, tl.trans(k)) * qk_scale
        masked = keys[None, :] >= seq
        scores = tl.where(masked, -float("inf"), scores)
        new_max = tl.maximum(run_max, tl.max(scores, axis=1))
        alpha = tl.exp2(run_max - new_max)
        p = tl.exp2(scores - new_max[:, None])
        run_sum = run_sum * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + kv_offsets, mask=keys[:, None] < seq, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.bfloat16), v)
        run_max = new_max
    out_offsets = base + rows[:, None] * HEAD_DIM + dims[None, :]
    tl.store(out_ptr + out_offsets, (acc / run_sum[:, None]).to(tl.bfloat16), mask=rows[:, None] < seq)


def solve(q, k, v, out, batch, heads, seq, head_dim, mask_mode):  # fmt: skip
    BLOCK_M, BLOCK_N = 64, 64
    grid = (triton.cdiv(seq, BLOCK_M), batch * heads)
    attention_kernel[grid](
        q, k, v, out, seq, mask_mode, 1.4426950408889634 / math.sqrt(head_dim),
        HEAD_DIM=head_dim, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
    )  # fmt: skip
