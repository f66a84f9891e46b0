"""Wrong: one program per row and whole column tile, n // BLOCK_N of them (at least one, so rows
shorter than a tile are done). When n is not a multiple of the tile and longer than one, the
columns past the last whole tile are never written and keep the judge's NaN."""

import torch
import triton
import triton.language as tl

BLOCK_N = 1024


@triton.jit
def swiglu_row_tiles(gate_ptr, up_ptr, out_ptr, n, BLOCK_N: tl.constexpr):
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < n
    offsets = tl.program_id(0).to(tl.int64) * n + cols
    g = tl.load(gate_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(up_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + offsets, (g / (1.0 + tl.exp(-g)) * u).to(tl.bfloat16), mask=mask)


def solve(gate: torch.Tensor, up: torch.Tensor, out: torch.Tensor, m: int, n: int) -> None:
    swiglu_row_tiles[(m, max(n // BLOCK_N, 1))](gate, up, out, n, BLOCK_N=BLOCK_N)
