"""Accepted: the Triton starter completed as its TODO says: each program loads 1024 elements of
gate and up (masked past the end), computes gate / (1 + exp(-gate)) * up in fp32 and stores it
as bf16."""

import torch
import triton
import triton.language as tl


@triton.jit
def swiglu_kernel(gate_ptr, up_ptr, out_ptr, total, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < total
    g = tl.load(gate_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(up_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    result = g / (1.0 + tl.exp(-g)) * u
    tl.store(out_ptr + offsets, result.to(tl.bfloat16), mask=mask)


def solve(gate: torch.Tensor, up: torch.Tensor, out: torch.Tensor, m: int, n: int) -> None:
    total = m * n
    swiglu_kernel[(triton.cdiv(total, 1024),)](gate, up, out, total, BLOCK=1024)
