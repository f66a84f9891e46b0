import math

import torch
import triton
import triton.language as tl


@triton.jit
def attention_kernel(
    q_ptr, k_ptr, v_ptr, out_ptr, seq, mask_mode, scale,
    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):  # fmt: skip
    # One program per (block of BLOCK_M query rows, batch * head).
    block = tl.program_id(0)
    head = tl.program_id(1)  # batch * heads + h: q, k, v and out of one head are seq x HEAD_DIM
    base = head.to(tl.int64) * seq * HEAD_DIM
    rows = block * BLOCK_M + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + base + rows[:, None] * HEAD_DIM + dims[None, :], mask=rows[:, None] < seq, other=0.0)
    run_max = tl.full([BLOCK_M], -float("inf"), tl.float32)
    run_sum = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    # TODO: for each block of BLOCK_N keys: load K and V tiles [BLOCK_N, HEAD_DIM] (masked, other=0),
    # scores = tl.dot(q, tl.trans(k)) * scale (fp32); set scores to -inf where key >= seq, and where
    # key > row when mask_mode == 2 (causal); then the online softmax: new_max = max(run_max, row
    # max of scores), alpha = exp(run_max - new_max), p = exp(scores - new_max[:, None]),
    # run_sum = run_sum * alpha + sum(p), acc = acc * alpha[:, None] + tl.dot(p.to(tl.bfloat16), v),
    # run_max = new_max
    # TODO: store (acc / run_sum[:, None]).to(tl.bfloat16) into out, masked to rows < seq
    pass


def solve(q, k, v, out, batch, heads, seq, head_dim, mask_mode):  # fmt: skip
    BLOCK_M, BLOCK_N = 64, 64
    grid = (triton.cdiv(seq, BLOCK_M), batch * heads)
    attention_kernel[grid](
        q, k, v, out, seq, mask_mode, 1.0 / math.sqrt(head_dim),
        HEAD_DIM=head_dim, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
    )  # fmt: skip
