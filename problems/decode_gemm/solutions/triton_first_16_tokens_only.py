"""Wrong: special-cases the shape it was tuned on. "Decode is batch 1 to 16", so the token tile
is fixed at 16 rows and there is no loop over token tiles: for m > 16 the outputs of tokens 16
and up are never written (they keep the judge's NaN)."""

import torch
import triton
import triton.language as tl


@triton.jit
def decode_gemm_kernel(a_ptr, w_ptr, c_ptr, m, n, k, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    tokens = tl.arange(0, 16)
    features = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((16, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, k, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a_tile = tl.load(
            a_ptr + tokens[:, None] * k + ks[None, :], mask=(tokens[:, None] < m) & (ks[None, :] < k), other=0.0
        )
        w_tile = tl.load(
            w_ptr + features[:, None] * k + ks[None, :], mask=(features[:, None] < n) & (ks[None, :] < k), other=0.0
        )
        acc = tl.dot(a_tile, tl.trans(w_tile), acc)
    tl.store(
        c_ptr + tokens[:, None] * n + features[None, :],
        acc.to(tl.bfloat16),
        mask=(tokens[:, None] < m) & (features[None, :] < n),
    )


def solve(a: torch.Tensor, w: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    decode_gemm_kernel[(triton.cdiv(n, 64),)](a, w, c, m, n, k, BLOCK_N=64, BLOCK_K=64)
