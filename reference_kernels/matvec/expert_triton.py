"""Expert Triton solution for matvec (obeys the contract).

Eight rows per program and k tiles of 512: every program streams 8 KiB of w per step as 16-byte
loads, widens to fp32 and keeps a [8, 512] accumulator that is summed along k only once at the
end (one reduction per row instead of one per tile). When k is a multiple of the tile the
column mask is dropped so the loads stay vectorised.
"""

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_K = 8, 512


@triton.jit
def _matvec(w_ptr, x_ptr, y_ptr, m, k, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = rows < m
    w_rows = w_ptr + tl.where(row_ok, rows, 0)[:, None].to(tl.int64) * k
    acc = tl.zeros([BLOCK_M, BLOCK_K], dtype=tl.float32)
    for start in range(0, k, BLOCK_K):
        cols = start + tl.arange(0, BLOCK_K)
        if EVEN_K:
            w = tl.load(w_rows + cols[None, :], eviction_policy="evict_first")
            x = tl.load(x_ptr + cols)
        else:
            w = tl.load(w_rows + cols[None, :], mask=cols[None, :] < k, other=0.0, eviction_policy="evict_first")
            x = tl.load(x_ptr + cols, mask=cols < k, other=0.0)
        acc += w.to(tl.float32) * x.to(tl.float32)[None, :]
    tl.store(y_ptr + rows, tl.sum(acc, axis=1), mask=row_ok)


def solve(w: torch.Tensor, x: torch.Tensor, y: torch.Tensor, m: int, k: int) -> None:
    _matvec[(triton.cdiv(m, BLOCK_M),)](
        w, x, y, m, k, BLOCK_M=BLOCK_M, BLOCK_K=BLOCK_K, EVEN_K=k % BLOCK_K == 0, num_warps=4
    )
