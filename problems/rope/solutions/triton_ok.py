"""Accepted: one program per block of tokens computes their cosines and sines once, then walks
every q and k head of those tokens with them."""

import math

import torch
import triton
import triton.language as tl

BLOCK_T = 4


@triton.jit
def _rotate_heads(src, dst, tokens, tmask, heads, head_dim, first, second, pmask, c, s):
    for h in range(heads):
        row = (tokens[:, None] * heads + h) * head_dim
        m = tmask[:, None] & pmask[None, :]
        a = tl.load(src + row + first[None, :], mask=m, other=0.0).to(tl.float32)
        b = tl.load(src + row + second[None, :], mask=m, other=0.0).to(tl.float32)
        tl.store(dst + row + first[None, :], (a * c - b * s).to(tl.bfloat16), mask=m)
        tl.store(dst + row + second[None, :], (b * c + a * s).to(tl.bfloat16), mask=m)


@triton.jit
def rope_tokens(
    q_ptr,
    k_ptr,
    pos_ptr,
    q_out_ptr,
    k_out_ptr,
    num_tokens,
    num_heads,
    num_kv_heads,
    head_dim,
    layout,
    log2_theta,
    BT: tl.constexpr,
    HALF_BLOCK: tl.constexpr,
):
    tokens = tl.program_id(0).to(tl.int64) * BT + tl.arange(0, BT)
    tmask = tokens < num_tokens
    pair = tl.arange(0, HALF_BLOCK)
    half = head_dim // 2
    pmask = pair < half
    position = tl.load(pos_ptr + tokens, mask=tmask, other=0).to(tl.float32)
    inv_freq = tl.exp2(-(2.0 * pair.to(tl.float32) / head_dim) * log2_theta)
    angle = position[:, None] * inv_freq[None, :]
    c = tl.cos(angle)
    s = tl.sin(angle)
    if layout == 1:
        first = 2 * pair
        second = 2 * pair + 1
    else:
        first = pair
        second = pair + half
    _rotate_heads(q_ptr, q_out_ptr, tokens, tmask, num_heads, head_dim, first, second, pmask, c, s)
    _rotate_heads(k_ptr, k_out_ptr, tokens, tmask, num_kv_heads, head_dim, first, second, pmask, c, s)


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
    grid = (triton.cdiv(num_tokens, BLOCK_T),)
    rope_tokens[grid](
        q,
        k,
        positions,
        q_out,
        k_out,
        num_tokens,
        num_heads,
        num_kv_heads,
        head_dim,
        layout,
        math.log2(theta),
        BT=BLOCK_T,
        HALF_BLOCK=triton.next_power_of_2(head_dim // 2),
    )
