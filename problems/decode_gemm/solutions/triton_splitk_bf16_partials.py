"""Wrong: split-K whose partial sums go through a bf16 workspace (half the bytes of fp32). Each
slice's sum is rounded to bf16 before the slices are added, so an output that is small next to
its partials carries an error of order 2^-9 of the partials, not of itself: far outside the
tolerance wherever a few slices nearly cancel."""

import torch
import triton
import triton.language as tl

BLOCK_N, BLOCK_K = 64, 64


@triton.jit
def partial_kernel(
    a_ptr, w_ptr, part_ptr, m, n, k, k_per_split, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr
):
    pid_n = tl.program_id(0)
    split = tl.program_id(1)
    tokens = tl.arange(0, BLOCK_M)
    features = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    k_start = split * k_per_split
    k_end = tl.minimum(k_start + k_per_split, k)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(k_start, k_end, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a_tile = tl.load(
            a_ptr + tokens[:, None] * k + ks[None, :], mask=(tokens[:, None] < m) & (ks[None, :] < k_end), other=0.0
        )
        w_tile = tl.load(
            w_ptr + features[:, None] * k + ks[None, :], mask=(features[:, None] < n) & (ks[None, :] < k_end), other=0.0
        )
        acc = tl.dot(a_tile, tl.trans(w_tile), acc)
    out = part_ptr + split * m * n + tokens[:, None] * n + features[None, :]
    tl.store(out, acc.to(tl.bfloat16), mask=(tokens[:, None] < m) & (features[None, :] < n))


@triton.jit
def reduce_kernel(part_ptr, c_ptr, total, splits, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    live = offsets < total
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for s in range(0, splits):
        acc += tl.load(part_ptr + s * total + offsets, mask=live, other=0.0).to(tl.float32)
    tl.store(c_ptr + offsets, acc.to(tl.bfloat16), mask=live)


def solve(a: torch.Tensor, w: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    block_m = max(16, triton.next_power_of_2(m))
    feature_blocks = triton.cdiv(n, BLOCK_N)
    # Enough programs for every SM several times over, each slice at least 512 deep.
    splits = max(1, min(triton.cdiv(512, feature_blocks), triton.cdiv(k, 512)))
    k_per_split = triton.cdiv(triton.cdiv(k, splits), BLOCK_K) * BLOCK_K
    splits = triton.cdiv(k, k_per_split)
    partials = torch.empty(splits, m, n, dtype=torch.bfloat16, device=a.device)  # half the bytes
    partial_kernel[(feature_blocks, splits)](
        a, w, partials, m, n, k, k_per_split, BLOCK_M=block_m, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K
    )
    total = m * n
    reduce_kernel[(triton.cdiv(total, 1024),)](partials, c, total, splits, BLOCK=1024)
