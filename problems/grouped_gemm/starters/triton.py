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
    # TODO: for each tile of BLOCK_M rows from start up to end (an expert without rows has
    # none): acc = fp32 zeros [BLOCK_M, BLOCK_N]; for k0 in steps of BLOCK_K, load the a tile
    # [BLOCK_M, BLOCK_K] (rows < end, columns < k, other=0) and the w tile as [BLOCK_K, BLOCK_N]
    # (element (p, j) at w_expert + j * k + p, masked to j < n and p < k), acc += tl.dot(a, w);
    # then store acc as bf16 into c[rows, cols] (masked to rows < end and cols < n). Offsets are
    # 64-bit: rows.to(tl.int64) * k.
    pass


def solve(a: torch.Tensor, w: torch.Tensor, expert_offsets: torch.Tensor, c: torch.Tensor, tokens: int, experts: int, active_experts: int, n: int, k: int) -> None:  # fmt: skip
    BLOCK_M, BLOCK_N, BLOCK_K = 32, 64, 32
    grid = (experts, triton.cdiv(n, BLOCK_N))
    grouped_gemm_kernel[grid](a, w, expert_offsets, c, n, k, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
