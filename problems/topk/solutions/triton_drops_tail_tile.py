"""Wrong answer: the k-pass kernel made "faster" by walking whole tiles only, without masks. The
columns past the last multiple of TILE are never read, so rows whose largest values sit in the
tail come out wrong, and rows shorter than one tile come out as garbage."""

import torch
import triton
import triton.language as tl

LOWEST = tl.constexpr(-(2**63))  # below every key
HIGHEST = tl.constexpr(2**63 - 1)  # above every key


@triton.jit
def make_key(x, col):
    # One int64 per element, ordered exactly like the ranking: the fp32 bits made monotonic
    # (negative values have their 31 low bits flipped) above, 0xFFFFFFFF - column below, so
    # that among equal values the lower column has the larger key. No two keys of a row are equal.
    bits = x.to(tl.int32, bitcast=True)
    ordered = bits ^ ((bits >> 31) & 0x7FFFFFFF)
    return (ordered.to(tl.int64) << 32) | (0xFFFFFFFF - col.to(tl.int64))


@triton.jit
def key_value(key):
    ordered = (key >> 32).to(tl.int32)
    return (ordered ^ ((ordered >> 31) & 0x7FFFFFFF)).to(tl.float32, bitcast=True)


@triton.jit
def key_column(key):
    return (0xFFFFFFFF - (key & 0xFFFFFFFF)).to(tl.int32)


@triton.jit
def topk_kernel(x_ptr, values_ptr, indices_ptr, n, k, TILE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, TILE)
    previous = tl.full([], HIGHEST, tl.int64)
    for r in range(0, k):
        best = tl.full([], LOWEST, tl.int64)
        for start in range(0, (n // TILE) * TILE, TILE):  # whole tiles: no mask needed
            offsets = start + cols
            x = tl.load(x_ptr + row * n + offsets)
            keys = make_key(x, offsets)
            keys = tl.where(keys < previous, keys, LOWEST)
            best = tl.maximum(best, tl.max(keys, axis=0))
        tl.store(values_ptr + row * k + r, key_value(best))
        tl.store(indices_ptr + row * k + r, key_column(best))
        previous = best


def solve(x: torch.Tensor, values: torch.Tensor, indices: torch.Tensor, m: int, n: int, k: int) -> None:
    # One program per row; pass r finds the largest key below the one pass r - 1 found.
    topk_kernel[(m,)](x, values, indices, n, k, TILE=1024)
