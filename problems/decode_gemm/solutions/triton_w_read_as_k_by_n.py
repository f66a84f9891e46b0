"""Wrong: reads w as if it were stored [k, n] (element (p, j) at p * n + j), the layout of the
matmul problem, instead of a linear layer's [n, k]: every output is the product with the wrong
weights (only a 1 x 1 weight reads the same either way)."""

import torch
import triton
import triton.language as tl


@triton.jit
def decode_gemm_kernel(
    a_ptr, w_ptr, c_ptr, m, n, k, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr
):
    pid = tl.program_id(0)
    tokens = tl.arange(0, BLOCK_M)
    features = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, k, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a_tile = tl.load(
            a_ptr + tokens[:, None] * k + ks[None, :], mask=(tokens[:, None] < m) & (ks[None, :] < k), other=0.0
        )
        w_tile = tl.load(
            w_ptr + ks[:, None] * n + features[None, :], mask=(ks[:, None] < k) & (features[None, :] < n), other=0.0
        )
        acc = tl.dot(a_tile, w_tile, acc)
    tl.store(
        c_ptr + tokens[:, None] * n + features[None, :],
        acc.to(tl.bfloat16),
        mask=(tokens[:, None] < m) & (features[None, :] < n),
    )


def solve(a: torch.Tensor, w: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    BLOCK_M = max(16, triton.next_power_of_2(m))
    BLOCK_N, BLOCK_K = 64, 64
    decode_gemm_kernel[(triton.cdiv(n, BLOCK_N),)](a, w, c, m, n, k, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
