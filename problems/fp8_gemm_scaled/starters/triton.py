import torch
import triton
import triton.language as tl


@triton.jit
def fp8_gemm_kernel(
    a_ptr, b_ptr, sa_ptr, sb_ptr, c_ptr, m, n, k,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):  # fmt: skip
    # One program per BLOCK_M tokens x BLOCK_N output features.
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    features = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, k, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        # TODO: load the e4m3 tiles a[rows, ks] [BLOCK_M, BLOCK_K] and b[features, ks]
        # [BLOCK_N, BLOCK_K] (row strides k), masked at the edges with other=0.0, and accumulate
        # acc = tl.dot(a_tile, tl.trans(b_tile), acc, max_num_imprecise_acc=32): exact products,
        # fp32 sums (on Hopper, without max_num_imprecise_acc Triton keeps the tensor cores'
        # narrow accumulator over all of k, which long k cannot afford).
        pass
    # TODO: load a_scale[rows] and b_scale[features] (fp32), multiply acc by a_scale[:, None] and
    # b_scale[None, :], store .to(tl.bfloat16) into c[rows, features] masked to rows < m,
    # features < n.


def solve(
    a: torch.Tensor, b: torch.Tensor, a_scale: torch.Tensor, b_scale: torch.Tensor, c: torch.Tensor,
    m: int, n: int, k: int,
) -> None:  # fmt: skip
    BLOCK_M = min(64, max(16, triton.next_power_of_2(m)))  # tl.dot needs at least 16 rows
    BLOCK_N, BLOCK_K = 64, 64
    grid = (triton.cdiv(m, BLOCK_M), triton.cdiv(n, BLOCK_N))
    fp8_gemm_kernel[grid](a, b, a_scale, b_scale, c, m, n, k, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
