"""Expert Triton solution for the W4A16 GEMM (obeys the submission contract).

Every k tile is one group of 128: its 16 words per output feature are loaded once, unpacked by a
broadcast shift into the integers q - zero (exact in bf16), multiplied on the tensor cores, and
the group's fp32 partial sum is scaled once per output (never one multiply per weight).

Two schedules, chosen by m:
- decode (m <= 64): the tokens padded to one 16-64 row tile; split-K sized to the SMs (about four
  programs per SM) so the packed weight, the only large operand, streams from every SM at once,
  evict-first; fp32 partials added in order by a second kernel (none when one slice is enough);
- prefill: 128 x 128 output tiles, programs ordered in groups of 8 tile rows so the weight tiles
  a wave reads stay in L2, Triton's software pipeline over the groups.
"""

import torch
import triton
import triton.language as tl

GROUP = 128
DECODE_MAX_M = 64


@triton.jit
def _group_product(a_ptr, qw_ptr, s_ptr, z_ptr, rows, features, row_ok, feature_ok, g, k, groups,
                   GROUP: tl.constexpr, BLOCK_N: tl.constexpr, STREAM: tl.constexpr):  # fmt: skip
    """The fp32 [rows, features] product of group g, its scale applied."""
    ks = g * GROUP + tl.arange(0, GROUP)
    a_tile = tl.load(a_ptr + rows[:, None] * k + ks[None, :], mask=row_ok[:, None], other=0.0)
    word_cols = g * (GROUP // 8) + tl.arange(0, GROUP // 8)
    w_ptrs = qw_ptr + features[:, None] * (k // 8) + word_cols[None, :]
    if STREAM:
        words = tl.load(w_ptrs, mask=feature_ok[:, None], other=0, eviction_policy="evict_first")
    else:
        words = tl.load(w_ptrs, mask=feature_ok[:, None], other=0)
    shifts = 4 * tl.arange(0, 8)
    q = tl.reshape((words[:, :, None] >> shifts[None, None, :]) & 0xF, (BLOCK_N, GROUP))
    zero = tl.load(z_ptr + features * groups + g, mask=feature_ok, other=0).to(tl.int32)
    scale = tl.load(s_ptr + features * groups + g, mask=feature_ok, other=0.0).to(tl.float32)
    w_int = (q - zero[:, None]).to(tl.bfloat16)
    return tl.dot(a_tile, tl.trans(w_int)) * scale[None, :]


@triton.jit
def _decode_slices(a_ptr, qw_ptr, s_ptr, z_ptr, part_ptr, c_ptr, m, n, k, groups_per_split,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP: tl.constexpr, DIRECT: tl.constexpr):  # fmt: skip
    pid_n = tl.program_id(0)
    split = tl.program_id(1)
    rows = tl.arange(0, BLOCK_M)
    features = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)).to(tl.int64)
    row_ok = rows < m
    feature_ok = features < n
    groups = k // GROUP
    g_start = split * groups_per_split
    g_end = tl.minimum(g_start + groups_per_split, groups)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for g in range(g_start, g_end):
        acc += _group_product(a_ptr, qw_ptr, s_ptr, z_ptr, rows, features, row_ok, feature_ok, g, k, groups,
                              GROUP, BLOCK_N, True)  # fmt: skip
    where = rows[:, None] * n + features[None, :]
    keep = row_ok[:, None] & feature_ok[None, :]
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


@triton.jit
def _prefill_tiles(a_ptr, qw_ptr, s_ptr, z_ptr, c_ptr, m, n, k,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP: tl.constexpr, TILE_ROWS: tl.constexpr):  # fmt: skip
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(m, BLOCK_M)
    tiles_n = tl.cdiv(n, BLOCK_N)
    # TILE_ROWS tile rows walk the tile columns together: a wave shares its weight tiles in L2
    per_band = TILE_ROWS * tiles_n
    band = pid // per_band
    first = band * TILE_ROWS
    rows_in_band = tl.minimum(tiles_m - first, TILE_ROWS)
    tile_m = first + (pid % per_band) % rows_in_band
    tile_n = (pid % per_band) // rows_in_band
    rows = (tile_m * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)
    features = (tile_n * BLOCK_N + tl.arange(0, BLOCK_N)).to(tl.int64)
    row_ok = rows < m
    feature_ok = features < n
    groups = k // GROUP
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for g in range(0, groups):
        acc += _group_product(a_ptr, qw_ptr, s_ptr, z_ptr, rows, features, row_ok, feature_ok, g, k, groups,
                              GROUP, BLOCK_N, False)  # fmt: skip
    tl.store(
        c_ptr + rows[:, None] * n + features[None, :], acc.to(tl.bfloat16), mask=row_ok[:, None] & feature_ok[None, :]
    )


def _sm_count(device: torch.device) -> int:
    if device.type == "cuda":
        return torch.cuda.get_device_properties(device).multi_processor_count
    return 4  # CPU interpreter: a few slices are enough to exercise the path


def solve(
    a: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor, zeros: torch.Tensor, c: torch.Tensor,
    m: int, n: int, k: int,
) -> None:  # fmt: skip
    groups = k // GROUP
    if m > DECODE_MAX_M:
        block_m, block_n = 128, 128
        grid = (triton.cdiv(m, block_m) * triton.cdiv(n, block_n),)
        _prefill_tiles[grid](
            a, qweight, scales, zeros, c, m, n, k,
            BLOCK_M=block_m, BLOCK_N=block_n, GROUP=GROUP, TILE_ROWS=8, num_warps=8, num_stages=3,
        )  # fmt: skip
        return
    block_m = max(16, triton.next_power_of_2(m))
    block_n = 64
    feature_blocks = triton.cdiv(n, block_n)
    splits = max(1, min(triton.cdiv(4 * _sm_count(a.device), feature_blocks), groups // 4))
    groups_per_split = triton.cdiv(groups, splits)
    splits = triton.cdiv(groups, groups_per_split)
    direct = splits == 1
    part = c if direct else torch.empty(splits, m, n, dtype=torch.float32, device=a.device)
    _decode_slices[(feature_blocks, splits)](
        a, qweight, scales, zeros, part, c, m, n, k, groups_per_split,
        BLOCK_M=block_m, BLOCK_N=block_n, GROUP=GROUP, DIRECT=direct, num_warps=4, num_stages=4,
    )  # fmt: skip
    if not direct:
        total = m * n
        _add_slices[(triton.cdiv(total, 1024),)](part, c, total, splits, BLOCK=1024, num_warps=4)
