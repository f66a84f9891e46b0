"""Expert Triton kernel for the grouped GEMM of MoE experts.

One launch over a flat list of row tiles, as in the corpus's triton_ok: every program reads the
expert offsets (experts + 1 integers, cached), counts each expert's tiles, and finds its own
tile's expert with an inclusive scan; experts without rows have no tiles. On top of that:
- the tile height follows the routing: the average rows per active expert (tokens /
  active_experts, known on the host) picks BLOCK_M = 32, 64 or 128, so a decode step's experts
  of a few rows do not pay for 128-row tiles of padding;
- the programs are ordered in groups of GROUP_M row tiles by all column blocks (a grouped
  launch order), so the programs in flight share a few a tiles and a few weight tiles in L2
  instead of each streaming its own;
- deep software pipelining (num_stages) of the a and w slabs under the tensor-core products.
"""

import torch
import triton
import triton.language as tl

GROUP_M = 8


@triton.jit
def grouped_gemm_kernel(
    a_ptr, w_ptr, offsets_ptr, c_ptr, experts, n, k, max_tiles,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK_E: tl.constexpr,
    GROUP: tl.constexpr,
):  # fmt: skip
    pid = tl.program_id(0)
    col_blocks = tl.cdiv(n, BLOCK_N)
    in_group = GROUP * col_blocks
    first = (pid // in_group) * GROUP
    size = tl.minimum(max_tiles - first, GROUP)
    tile = first + (pid % in_group) % size
    col_block = (pid % in_group) // size

    e_idx = tl.arange(0, BLOCK_E)
    starts = tl.load(offsets_ptr + e_idx, mask=e_idx < experts, other=0)
    ends = tl.load(offsets_ptr + e_idx + 1, mask=e_idx < experts, other=0)
    tiles = (ends - starts + BLOCK_M - 1) // BLOCK_M
    tiles_end = tl.cumsum(tiles, axis=0)
    expert = tl.sum((tiles_end <= tile).to(tl.int32), axis=0)
    if expert < experts:
        mine = e_idx == expert
        first_tile = tl.sum(tl.where(mine, tiles_end - tiles, 0), axis=0)
        start = tl.sum(tl.where(mine, starts, 0), axis=0)
        end = tl.sum(tl.where(mine, ends, 0), axis=0)
        rows = start + (tile - first_tile) * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = col_block * BLOCK_N + tl.arange(0, BLOCK_N)
        ks = tl.arange(0, BLOCK_K)
        row_ok = rows < end
        col_ok = cols < n
        a_rows = a_ptr + rows.to(tl.int64)[:, None] * k
        w_cols = w_ptr + expert.to(tl.int64) * n * k + cols.to(tl.int64)[None, :] * k
        acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        for k0 in range(0, k, BLOCK_K):
            kk = k0 + ks
            k_ok = kk < k
            a = tl.load(a_rows + kk[None, :], mask=row_ok[:, None] & k_ok[None, :], other=0.0)
            w = tl.load(w_cols + kk[:, None], mask=k_ok[:, None] & col_ok[None, :], other=0.0)
            acc = tl.dot(a, w, acc)
        out = c_ptr + rows.to(tl.int64)[:, None] * n + cols[None, :]
        tl.store(out, acc.to(tl.bfloat16), mask=row_ok[:, None] & col_ok[None, :])


def block_m_for(tokens: int, active_experts: int) -> int:
    """Tile height from the average rows per active expert: little padding, large tiles where
    the experts are large."""
    average = tokens / active_experts
    return 32 if average <= 32 else 64 if average <= 96 else 128


def solve(
    a: torch.Tensor,
    w: torch.Tensor,
    expert_offsets: torch.Tensor,
    c: torch.Tensor,
    tokens: int,
    experts: int,
    active_experts: int,
    n: int,
    k: int,
) -> None:
    block_m = block_m_for(tokens, active_experts)
    block_n, block_k = 128, 64
    max_tiles = triton.cdiv(tokens, block_m) + active_experts  # at most one partial tile per expert
    grid = (max_tiles * triton.cdiv(n, block_n),)
    grouped_gemm_kernel[grid](
        a, w, expert_offsets, c, experts, n, k, max_tiles,
        BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, BLOCK_E=triton.next_power_of_2(experts),
        GROUP=GROUP_M, num_warps=8 if block_m == 128 else 4, num_stages=4 if block_m == 128 else 5,
    )  # fmt: skip
