"""Candidate Triton expert for the int8 KV-cache append: key and value in one program, few
instructions per byte. Not yet measured on a GPU: the speed claims below are estimates.

Design. One launch, no torch ops and nothing in solve() that scales with the shape. A program
takes BLOCK_R consecutive (token, head) rows (16 at head_dim 128) of key AND of value: the rows
are contiguous across heads and tokens, so both tiles are single streams. It issues both loads
before any arithmetic (four 16-byte loads per thread, 8 KB per program in flight), looks up each
row's slot once for both tensors, and reduces each row's absmax in registers. The scale is
s = div_rn(absmax, 127); the quotient is x * div_rn(127, absmax): one correctly rounded division
per row instead of one per element (at the planted ties absmax = 127 * 2^j, so 127 / absmax is
exact; elsewhere the statement's 1.5e-5 margin covers the ulp of difference, whether the GPU fuses
the multiply into the add below or not). Rounding half to even costs one add: with
M = 1.5 * 2^23, fp32 y + M is rounded to an integer, ties to even (M is even), and its low byte
is that integer, so a bitcast to int32 and a truncation to int8 give q without a conversion
instruction. Each thread writes its 16 int8 values as one 16-byte store and each row's scale as
one 4-byte store (a token's heads are adjacent, so its scales fill whole sectors). num_kv_heads
and head_dim are compile-time constants: the row -> token division is a shift and the head_dim
mask disappears when head_dim is a power of two. A padding row loads its slot and nothing else.

Why it should beat the current expert (24.4 us, 49.4% of speed of light on
prefill-chunk-8k-gqa8). The expert is one launch too, so the gain is not launches but issue work
per byte. Per thread (16 elements, 32 bytes loaded) the expert's SASS main path is about 500
instructions: a div.rn.f32 per element (each with a slow-path branch), two 64-bit divisions by the
run-time head count, and rint plus a float -> int8 conversion per element (22 F2I/FRND, which
issue at a sixteenth of the FMA rate). Over its 8194 programs of 4 warps that is ~16 M warp
instructions, ~31 k issue cycles per SM, ~16 us at 1.98 GHz: more than the 12 us memory floor, so
the expert is likely issue-bound rather than DRAM-bound. Here the main path is about 315
instructions per thread for 32 elements (key and value, 64 bytes loaded), no F2I/FRND, four
div.rn.f32: over 4097 programs ~5 M warp instructions, ~5 us of issue, well under the floor, so
the kernel should be DRAM-bound; the target is <= 20 us (60%). The decode shapes stay one launch
(33 to 514 programs), with less work per program than the expert's.

Compiled for sm_90 (bench/compile_triton_sm90.py; 8 and 32 heads, head_dim 128): 48 registers,
no spills, per thread 4 x LDG.128 and 2 x STG.128 (int8, 16 bytes each) plus 2 scale stores.
The expert: 48 registers, no spills, per thread 2 x LDG.128 and 1 x STG.128.
"""

import torch
import triton
import triton.language as tl

_ROUND_MAGIC = tl.constexpr(12582912.0)  # 1.5 * 2^23: adding it rounds |y| < 2^22 to an integer, ties to even


@triton.jit
def _quantize(x, live_row, out_off, out_row, mask, cache_ptr, scale_ptr):
    xf = x.to(tl.float32)
    absmax = tl.max(tl.abs(xf), axis=1)
    s = tl.math.div_rn(absmax, 127.0)
    inv = tl.math.div_rn(127.0, tl.where(absmax > 0, absmax, 1.0))  # a zero row stays zero
    rounded = xf * inv[:, None] + _ROUND_MAGIC
    q = rounded.to(tl.int32, bitcast=True).to(tl.int8)  # low byte of M + q is q
    tl.store(cache_ptr + out_off, q, mask=mask)
    tl.store(scale_ptr + out_row, s, mask=live_row)


@triton.jit
def append_kernel(
    k_ptr, v_ptr, slot_ptr, kc_ptr, vc_ptr, ks_ptr, vs_ptr, rows,
    HEADS: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr,
):  # fmt: skip
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)  # rows < 2^31: tokens * heads
    cols = tl.arange(0, BLOCK_D)
    in_rows = r < rows
    token = r // HEADS
    slot = tl.load(slot_ptr + token, mask=in_rows, other=-1)
    live = in_rows & (slot >= 0)
    mask = live[:, None] if BLOCK_D == HEAD_DIM else live[:, None] & (cols[None, :] < HEAD_DIM)
    src = r.to(tl.int64)[:, None] * HEAD_DIM + cols[None, :]
    xk = tl.load(k_ptr + src, mask=mask, other=0.0)
    xv = tl.load(v_ptr + src, mask=mask, other=0.0)
    out_row = slot.to(tl.int64) * HEADS + (r - token * HEADS)
    out_off = out_row[:, None] * HEAD_DIM + cols[None, :]
    _quantize(xk, live, out_off, out_row, mask, kc_ptr, ks_ptr)
    _quantize(xv, live, out_off, out_row, mask, vc_ptr, vs_ptr)


def solve(
    key: torch.Tensor,
    value: torch.Tensor,
    slot_mapping: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    k_scale: torch.Tensor,
    v_scale: torch.Tensor,
    num_blocks: int,
    block_size: int,
    num_kv_heads: int,
    head_dim: int,
    padding: int,
) -> None:
    rows = (num_blocks * block_size + padding) * num_kv_heads
    block_d = triton.next_power_of_2(head_dim)
    block_r = max(1, min(64, 2048 // block_d))  # 2048 elements of key and 2048 of value
    append_kernel[(triton.cdiv(rows, block_r),)](
        key, value, slot_mapping, k_cache, v_cache, k_scale, v_scale, rows,
        HEADS=num_kv_heads, HEAD_DIM=head_dim, BLOCK_R=block_r, BLOCK_D=block_d, num_warps=4,
    )  # fmt: skip
