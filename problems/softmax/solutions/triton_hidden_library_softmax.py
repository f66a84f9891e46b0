"""Rejected (library compute hidden from the source scan): the Triton kernel is a decoy and the
real work is PyTorch's softmax, reached through getattr with a name built at run time so no
forbidden string appears in the file. The profiler's kernel list shows the library kernel."""

import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, dst_ptr, count, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < count
    tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)


_op = getattr(torch, "".join(["soft", "max"]))


def solve(x: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    result = _op(x, dim=1)
    copy_kernel[(triton.cdiv(m * n, 1024),)](result, y, m * n, BLOCK=1024)
