import torch
import triton
import triton.language as tl


@triton.jit
def grouped_gemm_kernel(
    a_ptr, w_ptr, offsets_ptr, c_ptr, n, k,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):  # fmt: skip
    # One program per (expert, block of BLOCK_N output columns).
    expert = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    start = tl.load(offsets_ptr + expert)
    end = tl.load(offsets_ptr + expert + 1)
    w_expert = w_ptr + expert.to(tl.int64) * n * k  # w[expert] is n x k
    for row0 in range(start, end, BLOCK_M):
        rows = row0 + tl.arange(0, BLOCK_M)
        acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        for k0 in range(0, k, BLOCK_K):
            kk = k0 + ks
            a = tl.load(
                a_ptr + rows[:, None].to(tl.int64) * k + kk[None, :],
                mask=(rows[:, None] < end) & (kk[None, :] < k),
                other=0.0,
            )
            w = tl.load(
                w_expert + cols[None, :].to(tl.int64) * k + kk[:, None],
                mask=(cols[None, :] < n) & (kk[:, None] < k),
                other=0.0,
            )
            acc += tl.dot(a, w)
        out = c_ptr + rows[:, None].to(tl.int64) * n + cols[None, :]
        tl.store(out, acc.to(tl.bfloat16), mask=(rows[:, None] < end) & (cols[None, :] < n))


def solve(a: torch.Tensor, w: torch.Tensor, expert_offsets: torch.Tensor, c: torch.Tensor, tokens: int, experts: int, active_experts: int, n: int, k: int) -> None:  # fmt: skip
    BLOCK_M, BLOCK_N, BLOCK_K = 32, 64, 32
    grid = (experts, triton.cdiv(n, BLOCK_N))
    grouped_gemm_kernel[grid](a, w, expert_offsets, c, n, k, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
