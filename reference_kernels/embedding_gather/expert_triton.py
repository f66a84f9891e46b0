"""Expert Triton solution for embedding_gather (obeys the contract).

Each program copies TOKENS rows: their indices are loaded as one vector, the row offsets are
64-bit, and a [TOKENS, BLOCK_D] tile moves per step, so short rows still fill a program with
wide loads. When dim is a multiple of BLOCK_D the column mask is dropped and the loads vectorise
to 16 bytes.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gather(
    table_ptr, indices_ptr, out_ptr, num_tokens, dim, TOKENS: tl.constexpr, BLOCK_D: tl.constexpr, EVEN_D: tl.constexpr
):
    tokens = tl.program_id(0) * TOKENS + tl.arange(0, TOKENS)
    token_ok = tokens < num_tokens
    rows = tl.load(indices_ptr + tokens, mask=token_ok, other=0).to(tl.int64)
    src = table_ptr + rows[:, None] * dim
    dst = out_ptr + tokens[:, None].to(tl.int64) * dim
    for start in range(0, dim, BLOCK_D):
        cols = start + tl.arange(0, BLOCK_D)
        mask = token_ok[:, None] if EVEN_D else token_ok[:, None] & (cols[None, :] < dim)
        tl.store(dst + cols[None, :], tl.load(src + cols[None, :], mask=mask), mask=mask)


def solve(table: torch.Tensor, indices: torch.Tensor, out: torch.Tensor, num_tokens: int, vocab: int, dim: int) -> None:
    block_d = min(triton.next_power_of_2(dim), 1024)
    tokens = max(1, min(16, 4096 // block_d))
    grid = (triton.cdiv(num_tokens, tokens),)
    _gather[grid](
        table, indices, out, num_tokens, dim, TOKENS=tokens, BLOCK_D=block_d, EVEN_D=dim % block_d == 0, num_warps=4
    )
