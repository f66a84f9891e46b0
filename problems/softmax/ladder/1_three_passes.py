"""Rung 1: one program per row, three passes over the row in tiles: the row's maximum, then the
sum of exp(x - max), then y = exp(x - max) / sum. x is read from memory three times."""

import torch
import triton
import triton.language as tl

MAX_TILE = 1024


@triton.jit
def _three_pass_rows(x_ptr, y_ptr, n, TILE: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * n
    cols = tl.arange(0, TILE)
    # Pass 1: the maximum, lane by lane, then across the lanes.
    lane_max = tl.full([TILE], -float("inf"), tl.float32)
    for start in range(0, n, TILE):
        x = tl.load(x_ptr + base + start + cols, mask=start + cols < n, other=-float("inf"))
        lane_max = tl.maximum(lane_max, x)
    row_max = tl.max(lane_max, axis=0)
    # Pass 2: the sum of exponentials (masked lanes load -inf, whose exponential is 0).
    lane_sum = tl.zeros([TILE], tl.float32)
    for start in range(0, n, TILE):
        x = tl.load(x_ptr + base + start + cols, mask=start + cols < n, other=-float("inf"))
        lane_sum += tl.exp(x - row_max)
    inv = 1.0 / tl.sum(lane_sum, axis=0)
    # Pass 3: the output.
    for start in range(0, n, TILE):
        mask = start + cols < n
        x = tl.load(x_ptr + base + start + cols, mask=mask, other=-float("inf"))
        tl.store(y_ptr + base + start + cols, tl.exp(x - row_max) * inv, mask=mask)


def solve(x: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    tile = min(MAX_TILE, triton.next_power_of_2(n))
    _three_pass_rows[(m,)](x, y, n, TILE=tile)
