"""Expert Triton solution for swiglu (obeys the contract).

SwiGLU is elementwise: 6 bytes of traffic per element for five flops, so the kernel is bound by
DRAM bandwidth and the work is to stream gate and up through once at full speed. The tensors are
treated as one flat array of m * n elements (rows need no special care); each program takes 4096
of them with 8 warps, so every thread issues 16-byte loads of eight bf16 values and has several
in flight. The inputs are read once and loaded evict-first so they do not push the output out of
L2; SiLU's exponential goes through exp2. Only the last program's tile is partial.
"""

import torch
import triton
import triton.language as tl

BLOCK = 4096
LOG2E = 1.4426950408889634


@triton.jit
def _swiglu(gate_ptr, up_ptr, out_ptr, total, log2e, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < total
    g = tl.load(gate_ptr + offsets, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    u = tl.load(up_ptr + offsets, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    out = g * u / (1.0 + tl.exp2(-g * log2e))
    tl.store(out_ptr + offsets, out.to(tl.bfloat16), mask=mask)


def solve(gate: torch.Tensor, up: torch.Tensor, out: torch.Tensor, m: int, n: int) -> None:
    total = m * n
    _swiglu[(triton.cdiv(total, BLOCK),)](gate, up, out, total, LOG2E, BLOCK=BLOCK, num_warps=8)
