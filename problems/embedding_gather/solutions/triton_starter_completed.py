"""Accepted: the Triton starter completed as its TODO says: the token's row index, a 64-bit row
offset, masked columns."""

import torch
import triton
import triton.language as tl


@triton.jit
def gather_kernel(table_ptr, indices_ptr, out_ptr, dim, BLOCK_D: tl.constexpr):
    token = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    mask = cols < dim
    row = tl.load(indices_ptr + token).to(tl.int64)
    values = tl.load(table_ptr + row * dim + cols, mask=mask)
    tl.store(out_ptr + token.to(tl.int64) * dim + cols, values, mask=mask)


def solve(table: torch.Tensor, indices: torch.Tensor, out: torch.Tensor, num_tokens: int, vocab: int, dim: int) -> None:
    BLOCK_D = 1024
    grid = (num_tokens, triton.cdiv(dim, BLOCK_D))
    gather_kernel[grid](table, indices, out, dim, BLOCK_D=BLOCK_D)
