"""Wrong answer: every row adds loss / m into the output with an atomic, but nothing sets the
output to 0 first. The judge fills it with NaN before every call, and NaN + anything is NaN."""

import torch
import triton
import triton.language as tl


@triton.jit
def row_loss_kernel(logits_ptr, targets_ptr, loss_ptr, m, v, TILE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, TILE)
    top = tl.full([TILE], float("-inf"), tl.float32)
    for start in range(0, v, TILE):
        offsets = start + cols
        x = tl.load(logits_ptr + row * v + offsets, mask=offsets < v, other=float("-inf")).to(tl.float32)
        top = tl.maximum(top, x)
    maximum = tl.max(top, axis=0)
    total = tl.zeros([TILE], tl.float32)
    for start in range(0, v, TILE):
        offsets = start + cols
        x = tl.load(logits_ptr + row * v + offsets, mask=offsets < v, other=float("-inf")).to(tl.float32)
        total += tl.exp(x - maximum)
    target = tl.load(targets_ptr + row)
    picked = tl.load(logits_ptr + row * v + target).to(tl.float32)
    tl.atomic_add(loss_ptr, ((maximum - picked) + tl.log(tl.sum(total, axis=0))) / m)


def solve(logits: torch.Tensor, targets: torch.Tensor, loss: torch.Tensor, m: int, v: int) -> None:
    # No scratch buffer, no second kernel: every row adds its share straight into loss.
    row_loss_kernel[(m,)](logits, targets, loss, m, v, TILE=1024)
