"""Expert Triton kernels for speculative decoding verification: each chosen row split over
several programs.

A program per sequence reads its one or two rows alone, which leaves the GPU idle at small
batches. Here the row is cut into slices of SLICE tokens and the grid is (sequences, slices), in
two launches: the first adds up each slice's weight (every program redoes the num_draft tests, a
few cached loads), the second reads the slices' partial sums, and only the program whose slice
holds w * Z scans it, stopping at the sample. The partial sums are exact (multiples of 2^-20), so
the program that scans is the same whatever order they are added in.
"""

import torch
import triton
import triton.language as tl

SLICE = 8192
BLOCK = 2048


@triton.jit
def accepted_length(ids_ptr, q_ptr, p_ptr, u_ptr, seq, num_draft, vocab, K_PAD: tl.constexpr):
    pos = tl.arange(0, K_PAD)
    tested = pos < num_draft
    x = tl.load(ids_ptr + seq * num_draft + pos, mask=tested, other=0).to(tl.int64)
    q = tl.load(q_ptr + (seq * num_draft + pos) * vocab + x, mask=tested, other=1.0)
    p = tl.load(p_ptr + (seq * (num_draft + 1) + pos) * vocab + x, mask=tested, other=0.0)
    u = tl.load(u_ptr + seq * num_draft + pos, mask=tested, other=1.0)
    return tl.min(tl.where(tested & (u * q >= p), pos, num_draft), axis=0)


@triton.jit
def partial_kernel(
    ids_ptr, q_ptr, p_ptr, u_ptr, n_ptr, partial_ptr, num_draft, vocab, slices,
    K_PAD: tl.constexpr, SLICE: tl.constexpr, BLOCK: tl.constexpr,
):  # fmt: skip
    seq = tl.program_id(0).to(tl.int64)
    part = tl.program_id(1)
    n = accepted_length(ids_ptr, q_ptr, p_ptr, u_ptr, seq, num_draft, vocab, K_PAD)
    if part == 0:
        tl.store(n_ptr + seq, n)
    rejected = n < num_draft
    p_row = p_ptr + (seq * (num_draft + 1) + n) * vocab
    q_row = q_ptr + (seq * num_draft + tl.minimum(n, num_draft - 1)) * vocab
    total = 0.0
    for start in range(part * SLICE, part * SLICE + SLICE, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        pv = tl.load(p_row + cols, mask=cols < vocab, other=0.0)
        qv = tl.load(q_row + cols, mask=(cols < vocab) & rejected, other=0.0)
        total += tl.sum(tl.maximum(pv - qv, 0.0), axis=0)
    tl.store(partial_ptr + seq * slices + part, total)


@triton.jit
def draw_kernel(
    ids_ptr, q_ptr, p_ptr, u_ptr, w_ptr, partial_ptr, token_ptr, num_draft, vocab, slices,
    K_PAD: tl.constexpr, S_PAD: tl.constexpr, SLICE: tl.constexpr, BLOCK: tl.constexpr,
):  # fmt: skip
    seq = tl.program_id(0).to(tl.int64)
    part = tl.program_id(1)
    index = tl.arange(0, S_PAD)
    partial = tl.load(partial_ptr + seq * slices + index, mask=index < slices, other=0.0)
    before = tl.sum(tl.where(index < part, partial, 0.0), axis=0)
    mine = tl.sum(tl.where(index == part, partial, 0.0), axis=0)
    target = tl.load(w_ptr + seq) * tl.sum(partial, axis=0)
    if (before <= target) & (target < before + mine):  # exactly one slice holds the sample
        n = accepted_length(ids_ptr, q_ptr, p_ptr, u_ptr, seq, num_draft, vocab, K_PAD)
        rejected = n < num_draft
        p_row = p_ptr + (seq * (num_draft + 1) + n) * vocab
        q_row = q_ptr + (seq * num_draft + tl.minimum(n, num_draft - 1)) * vocab
        carry = before
        token = vocab
        start = part * SLICE
        while (token == vocab) & (start < vocab):  # the sample lies in this slice: it ends there
            cols = start + tl.arange(0, BLOCK)
            pv = tl.load(p_row + cols, mask=cols < vocab, other=0.0)
            qv = tl.load(q_row + cols, mask=(cols < vocab) & rejected, other=0.0)
            d = tl.maximum(pv - qv, 0.0)
            running = carry + tl.cumsum(d, axis=0)
            token = tl.min(tl.where((d > 0) & (running > target), cols, vocab), axis=0)
            carry += tl.sum(d, axis=0)
            start += BLOCK
        tl.store(token_ptr + seq, token)


def solve(draft_token_ids: torch.Tensor, draft_probs: torch.Tensor, target_probs: torch.Tensor, accept_uniforms: torch.Tensor, sample_uniforms: torch.Tensor, num_accepted: torch.Tensor, next_token: torch.Tensor, batch: int, num_draft: int, vocab: int) -> None:  # fmt: skip
    block = min(BLOCK, triton.next_power_of_2(vocab))
    slice_ = max(SLICE, block) if vocab > SLICE else block * triton.cdiv(vocab, block)
    slices = triton.cdiv(vocab, slice_)
    partial = torch.empty((batch, slices), dtype=torch.float32, device=draft_probs.device)
    k_pad = triton.next_power_of_2(num_draft)
    inputs = (draft_token_ids, draft_probs, target_probs, accept_uniforms)
    partial_kernel[(batch, slices)](
        *inputs, num_accepted, partial, num_draft, vocab, slices, K_PAD=k_pad, SLICE=slice_, BLOCK=block, num_warps=8
    )
    draw_kernel[(batch, slices)](
        *inputs, sample_uniforms, partial, next_token, num_draft, vocab, slices,
        K_PAD=k_pad, S_PAD=triton.next_power_of_2(slices), SLICE=slice_, BLOCK=block, num_warps=8,
    )  # fmt: skip
