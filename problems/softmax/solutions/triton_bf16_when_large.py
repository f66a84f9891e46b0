"""Wrong answer (exact on small shapes, approximate on large ones): matrices of more than a
million elements are read as fp32 but exponentiated and normalised in bf16, which is where the
benchmark time is. The CPU cases never see the shortcut; the gpu_only cases and the checked
benchmark shapes do."""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_row_kernel(x_ptr, y_ptr, n, BLOCK_N: tl.constexpr, LOW: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=mask, other=-float("inf"))
    shifted = x - tl.max(x, axis=0)
    if LOW:
        e = tl.exp(shifted.to(tl.bfloat16).to(tl.float32)).to(tl.bfloat16).to(tl.float32)
    else:
        e = tl.exp(shifted)
    tl.store(y_ptr + row * n + cols, e / tl.sum(e, axis=0), mask=mask)


@triton.jit
def softmax_online_kernel(x_ptr, y_ptr, n, TILE: tl.constexpr, LOW: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, TILE)
    run_max = -float("inf")
    run_sum = 0.0
    for start in range(0, n, TILE):
        x = tl.load(x_ptr + row * n + start + cols, mask=start + cols < n, other=-float("inf"))
        new_max = tl.maximum(run_max, tl.max(x, axis=0))
        run_sum = run_sum * tl.exp(run_max - new_max) + tl.sum(tl.exp(x - new_max), axis=0)
        run_max = new_max
    for start in range(0, n, TILE):
        mask = start + cols < n
        x = tl.load(x_ptr + row * n + start + cols, mask=mask, other=-float("inf"))
        if LOW:
            e = tl.exp((x - run_max).to(tl.bfloat16).to(tl.float32))
        else:
            e = tl.exp(x - run_max)
        tl.store(y_ptr + row * n + start + cols, e / run_sum, mask=mask)


def solve(x: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    large = m * n > 1_000_000
    if n <= 16384:
        softmax_row_kernel[(m,)](x, y, n, BLOCK_N=triton.next_power_of_2(n), LOW=large)
    else:
        softmax_online_kernel[(m,)](x, y, n, TILE=4096, LOW=large)
