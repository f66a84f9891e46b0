import torch
import triton
import triton.language as tl


@triton.jit
def gather_kernel(table_ptr, indices_ptr, out_ptr, dim, BLOCK_D: tl.constexpr):
    token = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    # TODO: load this token's row index, then copy table[row, cols] into out[token, cols]
    # (mask the columns past dim; compute the row offset in 64 bits)
    pass


def solve(table: torch.Tensor, indices: torch.Tensor, out: torch.Tensor, num_tokens: int, vocab: int, dim: int) -> None:
    BLOCK_D = 1024
    grid = (num_tokens, triton.cdiv(dim, BLOCK_D))
    gather_kernel[grid](table, indices, out, dim, BLOCK_D=BLOCK_D)
