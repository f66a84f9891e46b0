"""Expert Triton solution for rope (obeys the contract).

A program takes a few tokens and a block of heads (of q, or of k: the grid's second axis counts
q's head blocks first). It computes the tokens' cosines and sines once and rotates the
[tokens, heads, head_dim] tile with contiguous loads: interleaved rows are loaded whole and split
into their pairs with reshape + split, and joined back for one contiguous store; half-split rows
are loaded as their two halves. The layout and the padded half width are compile-time constants.
"""

import math

import torch
import triton
import triton.language as tl

BLOCK_T = 4
BLOCK_H = 8


@triton.jit
def _rope_tile(
    src,
    dst,
    pos_ptr,
    num_tokens,
    heads,
    head_block,
    head_dim,
    log2_theta,
    LAYOUT: tl.constexpr,
    HALF_BLOCK: tl.constexpr,
    BT: tl.constexpr,
    BH: tl.constexpr,
):
    tokens = tl.program_id(0).to(tl.int64) * BT + tl.arange(0, BT)
    hs = head_block * BH + tl.arange(0, BH)
    half = head_dim // 2
    pair = tl.arange(0, HALF_BLOCK)
    position = tl.load(pos_ptr + tokens, mask=tokens < num_tokens, other=0).to(tl.float32)
    inv_freq = tl.exp2(-(2.0 * pair.to(tl.float32) / head_dim) * log2_theta)
    angle = position[:, None] * inv_freq[None, :]
    c = tl.cos(angle)[:, None, :]
    s = tl.sin(angle)[:, None, :]
    rows = (tokens[:, None] * heads + hs[None, :]) * head_dim  # [BT, BH]
    live = (tokens[:, None] < num_tokens) & (hs[None, :] < heads)
    if LAYOUT == 1:
        col = tl.arange(0, 2 * HALF_BLOCK)
        offs = rows[:, :, None] + col[None, None, :]
        m = live[:, :, None] & (col[None, None, :] < head_dim)
        x = tl.load(src + offs, mask=m, other=0.0, eviction_policy="evict_first").to(tl.float32)
        a, b = tl.split(tl.reshape(x, (BT, BH, HALF_BLOCK, 2)))
        y = tl.join(a * c - b * s, b * c + a * s)
        tl.store(dst + offs, tl.reshape(y, (BT, BH, 2 * HALF_BLOCK)).to(tl.bfloat16), mask=m)
    else:
        offs = rows[:, :, None] + pair[None, None, :]
        m = live[:, :, None] & (pair[None, None, :] < half)
        a = tl.load(src + offs, mask=m, other=0.0, eviction_policy="evict_first").to(tl.float32)
        b = tl.load(src + offs + half, mask=m, other=0.0, eviction_policy="evict_first").to(tl.float32)
        tl.store(dst + offs, (a * c - b * s).to(tl.bfloat16), mask=m)
        tl.store(dst + offs + half, (b * c + a * s).to(tl.bfloat16), mask=m)


@triton.jit
def rope_expert(
    q_ptr,
    k_ptr,
    pos_ptr,
    q_out_ptr,
    k_out_ptr,
    num_tokens,
    num_heads,
    num_kv_heads,
    head_dim,
    log2_theta,
    LAYOUT: tl.constexpr,
    HALF_BLOCK: tl.constexpr,
    BT: tl.constexpr,
    BH: tl.constexpr,
):
    block = tl.program_id(1)
    q_blocks = tl.cdiv(num_heads, BH)
    if block < q_blocks:
        _rope_tile(
            q_ptr, q_out_ptr, pos_ptr, num_tokens, num_heads, block, head_dim, log2_theta, LAYOUT, HALF_BLOCK, BT, BH
        )
    else:
        _rope_tile(
            k_ptr,
            k_out_ptr,
            pos_ptr,
            num_tokens,
            num_kv_heads,
            block - q_blocks,
            head_dim,
            log2_theta,
            LAYOUT,
            HALF_BLOCK,
            BT,
            BH,
        )


def solve(
    q: torch.Tensor,
    k: torch.Tensor,
    positions: torch.Tensor,
    q_out: torch.Tensor,
    k_out: torch.Tensor,
    num_tokens: int,
    num_heads: int,
    num_kv_heads: int,
    head_dim: int,
    layout: int,
    theta: int,
) -> None:
    grid = (triton.cdiv(num_tokens, BLOCK_T), triton.cdiv(num_heads, BLOCK_H) + triton.cdiv(num_kv_heads, BLOCK_H))
    rope_expert[grid](
        q,
        k,
        positions,
        q_out,
        k_out,
        num_tokens,
        num_heads,
        num_kv_heads,
        head_dim,
        math.log2(theta),
        LAYOUT=layout,
        HALF_BLOCK=triton.next_power_of_2(head_dim // 2),
        BT=BLOCK_T,
        BH=BLOCK_H,
        num_warps=4,
    )
