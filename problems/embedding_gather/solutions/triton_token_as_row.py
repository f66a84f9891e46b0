"""Wrong: forgets the indirection and copies table row t for token t (right only where
indices[t] == t by chance)."""

import torch
import triton
import triton.language as tl


@triton.jit
def gather_kernel(table_ptr, out_ptr, dim, vocab, BLOCK_D: tl.constexpr):
    token = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    row = (token % vocab).to(tl.int64)
    mask = cols < dim
    values = tl.load(table_ptr + row * dim + cols, mask=mask)
    tl.store(out_ptr + token.to(tl.int64) * dim + cols, values, mask=mask)


def solve(table: torch.Tensor, indices: torch.Tensor, out: torch.Tensor, num_tokens: int, vocab: int, dim: int) -> None:
    block = min(triton.next_power_of_2(dim), 1024)
    gather_kernel[(num_tokens, triton.cdiv(dim, block))](table, out, dim, vocab, BLOCK_D=block)
