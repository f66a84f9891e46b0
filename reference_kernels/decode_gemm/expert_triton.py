"""Expert Triton solution for the decode GEMM c = a @ w^T (obeys the submission contract).

Split-K sized to the machine: programs over (block of output features, slice of k) multiply
their slice with tl.dot (the tokens, padded to 16-64 rows, as the first operand; the weight tile
transposed as the second), so the weight is streamed once in total by about four programs per SM.
The k loop is software-pipelined by Triton (num_stages) with 128-wide k tiles: 16-byte loads and
several in flight per program. Each slice writes an fp32 partial; a second kernel adds the slices
in order and rounds once to bf16. With a single slice the first kernel writes c itself.
"""

import torch
import triton
import triton.language as tl

BLOCK_N = 64
BLOCK_K = 128


@triton.jit
def _slice_product(
    a_ptr,
    w_ptr,
    part_ptr,
    c_ptr,
    m,
    n,
    k,
    k_per_split,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    DIRECT: tl.constexpr,
):
    pid_n = tl.program_id(0)
    split = tl.program_id(1)
    tokens = tl.arange(0, BLOCK_M)
    features = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    token_ok = tokens < m
    feature_ok = features < n
    k_start = split * k_per_split
    k_end = tl.minimum(k_start + k_per_split, k)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    a_rows = a_ptr + tokens.to(tl.int64)[:, None] * k
    w_rows = w_ptr + features.to(tl.int64)[:, None] * k
    for k0 in range(k_start, k_end, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        k_ok = ks < k_end
        a_tile = tl.load(a_rows + ks[None, :], mask=token_ok[:, None] & k_ok[None, :], other=0.0)
        w_tile = tl.load(
            w_rows + ks[None, :], mask=feature_ok[:, None] & k_ok[None, :], other=0.0, eviction_policy="evict_first"
        )
        acc = tl.dot(a_tile, tl.trans(w_tile), acc)
    where = tokens[:, None] * n + features[None, :]
    keep = token_ok[:, None] & feature_ok[None, :]
    if DIRECT:
        tl.store(c_ptr + where, acc.to(tl.bfloat16), mask=keep)
    else:
        tl.store(part_ptr + split * m * n + where, acc, mask=keep)


@triton.jit
def _add_slices(part_ptr, c_ptr, total, splits, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    live = offsets < total
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for s in range(0, splits):
        acc += tl.load(part_ptr + s * total + offsets, mask=live, other=0.0)
    tl.store(c_ptr + offsets, acc.to(tl.bfloat16), mask=live)


def _sm_count(device: torch.device) -> int:
    if device.type == "cuda":
        return torch.cuda.get_device_properties(device).multi_processor_count
    return 4  # CPU interpreter: a few slices are enough to exercise the path


def solve(a: torch.Tensor, w: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    block_m = max(16, triton.next_power_of_2(m))
    feature_blocks = triton.cdiv(n, BLOCK_N)
    splits = triton.cdiv(4 * _sm_count(a.device), feature_blocks)
    splits = max(1, min(splits, k // 512))
    k_per_split = triton.cdiv(triton.cdiv(k, splits), BLOCK_K) * BLOCK_K
    splits = triton.cdiv(k, k_per_split)
    direct = splits == 1
    part = c if direct else torch.empty(splits, m, n, dtype=torch.float32, device=a.device)
    _slice_product[(feature_blocks, splits)](
        a, w, part, c, m, n, k, k_per_split,
        BLOCK_M=block_m, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, DIRECT=direct, num_warps=4, num_stages=4,
    )  # fmt: skip
    if not direct:
        total = m * n
        _add_slices[(triton.cdiv(total, 1024),)](part, c, total, splits, BLOCK=1024, num_warps=4)
