"""Wrong: multiplies in bf16 (each product rounded to bf16, as a packed bf16 multiply would)
and only then sums in fp32."""

import torch
import triton
import triton.language as tl


@triton.jit
def matvec_kernel(w_ptr, x_ptr, y_ptr, m, k, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros([BLOCK_M], dtype=tl.float32)
    for start in range(0, k, BLOCK_K):
        cols = start + tl.arange(0, BLOCK_K)
        mask = (rows[:, None] < m) & (cols[None, :] < k)
        w = tl.load(w_ptr + rows[:, None] * k + cols[None, :], mask=mask, other=0.0)
        x = tl.load(x_ptr + cols, mask=cols < k, other=0.0)
        products = (w.to(tl.float32) * x.to(tl.float32)[None, :]).to(tl.bfloat16)
        acc += tl.sum(products.to(tl.float32), axis=1)
    tl.store(y_ptr + rows, acc, mask=rows < m)


def solve(w: torch.Tensor, x: torch.Tensor, y: torch.Tensor, m: int, k: int) -> None:
    matvec_kernel[(triton.cdiv(m, 16),)](w, x, y, m, k, BLOCK_M=16, BLOCK_K=256)
