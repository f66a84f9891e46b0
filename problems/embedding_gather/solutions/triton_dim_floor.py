"""Wrong: copies each row in whole 64-column chunks and forgets the remainder: the last
dim % 64 columns of every output row stay NaN (and rows shorter than 64 are not copied at all)."""

import torch
import triton
import triton.language as tl


@triton.jit
def gather_kernel(table_ptr, indices_ptr, out_ptr, dim, BLOCK_D: tl.constexpr):
    token = tl.program_id(0)
    row = tl.load(indices_ptr + token).to(tl.int64)
    for start in range(0, dim // BLOCK_D * BLOCK_D, BLOCK_D):
        cols = start + tl.arange(0, BLOCK_D)
        tl.store(out_ptr + token.to(tl.int64) * dim + cols, tl.load(table_ptr + row * dim + cols))


def solve(table: torch.Tensor, indices: torch.Tensor, out: torch.Tensor, num_tokens: int, vocab: int, dim: int) -> None:
    gather_kernel[(num_tokens,)](table, indices, out, dim, BLOCK_D=64)
