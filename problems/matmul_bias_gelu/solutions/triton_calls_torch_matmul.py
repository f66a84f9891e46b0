"""Rejected (forbidden library ops): a Triton submission whose kernel only copies, while the
product and the activation come from torch.addmm and torch.nn.functional.gelu."""

import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, dst_ptr, count, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < count
    tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)


def solve(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    activated = torch.nn.functional.gelu(torch.addmm(bias, a, b))
    copy_kernel[(triton.cdiv(m * n, 1024),)](activated, c, m * n, BLOCK=1024)
