"""Wrong answer: one pass over the row in tiles, keeping the best k keys so far, but each key is
built from the column inside the tile (0 .. TILE - 1), not from the column in the row. The values
are right; the indices of everything past the first tile are off by the tile's start, and ties
between tiles are broken by the position inside the tile."""

import torch
import triton
import triton.language as tl

LOWEST = tl.constexpr(-(2**63))


@triton.jit
def make_key(x, col):
    bits = x.to(tl.int32, bitcast=True)
    ordered = bits ^ ((bits >> 31) & 0x7FFFFFFF)
    return (ordered.to(tl.int64) << 32) | (0xFFFFFFFF - col.to(tl.int64))


@triton.jit
def topk_kernel(x_ptr, values_ptr, indices_ptr, n, k, KP: tl.constexpr, TILE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, TILE)
    best = LOWEST + 1 + tl.arange(0, KP).to(tl.int64)  # distinct placeholders below every key
    for start in range(0, n, TILE):
        mask = start + cols < n
        x = tl.load(x_ptr + row * n + start + cols, mask=mask, other=0.0)
        keys = tl.where(mask, make_key(x, cols), LOWEST)
        for _ in range(0, k):  # the tile's best k, largest first, each replacing the smallest kept
            pick = tl.max(keys, axis=0)
            keys = tl.where(keys == pick, LOWEST, keys)
            smallest = tl.min(best, axis=0)
            best = tl.where((best == smallest) & (pick > smallest), pick, best)
    for r in range(0, k):
        pick = tl.max(best, axis=0)
        best = tl.where(best == pick, LOWEST, best)
        ordered = (pick >> 32).to(tl.int32)
        tl.store(values_ptr + row * k + r, (ordered ^ ((ordered >> 31) & 0x7FFFFFFF)).to(tl.float32, bitcast=True))
        tl.store(indices_ptr + row * k + r, (0xFFFFFFFF - (pick & 0xFFFFFFFF)).to(tl.int32))


def solve(x: torch.Tensor, values: torch.Tensor, indices: torch.Tensor, m: int, n: int, k: int) -> None:
    topk_kernel[(m,)](x, values, indices, n, k, KP=max(2, triton.next_power_of_2(k)), TILE=1024)
