"""Accepted: a 2-D grid, one program per row block and column tile (rows of BLOCK_M, columns of
BLOCK_N, both masked at the edges); SiLU's exponential through exp2 (e^-g = 2^(-g * log2 e)), the
product in fp32, one bf16 store."""

import torch
import triton
import triton.language as tl

LOG2E = 1.4426950408889634
BLOCK_M, BLOCK_N = 4, 512


@triton.jit
def swiglu_tiles(gate_ptr, up_ptr, out_ptr, m, n, log2e, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < m) & (cols[None, :] < n)
    offsets = rows[:, None].to(tl.int64) * n + cols[None, :]
    g = tl.load(gate_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(up_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    activated = g / (1.0 + tl.exp2(-g * log2e))
    tl.store(out_ptr + offsets, (activated * u).to(tl.bfloat16), mask=mask)


def solve(gate: torch.Tensor, up: torch.Tensor, out: torch.Tensor, m: int, n: int) -> None:
    grid = (triton.cdiv(m, BLOCK_M), triton.cdiv(n, BLOCK_N))
    swiglu_tiles[grid](gate, up, out, m, n, LOG2E, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
