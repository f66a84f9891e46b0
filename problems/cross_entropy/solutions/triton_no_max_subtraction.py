"""Wrong answer: log(sum(exp(x))) in one pass, without subtracting the row's maximum first. Right
for small logits; a row whose top logit is near 100 overflows exp() in fp32 to inf, and the loss
with it."""

import torch
import triton
import triton.language as tl


@triton.jit
def row_loss_kernel(logits_ptr, targets_ptr, row_loss_ptr, v, TILE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, TILE)
    total = tl.zeros([TILE], tl.float32)
    for start in range(0, v, TILE):  # one pass: exp(x) summed straight away
        offsets = start + cols
        x = tl.load(logits_ptr + row * v + offsets, mask=offsets < v, other=float("-inf")).to(tl.float32)
        total += tl.exp(x)
    target = tl.load(targets_ptr + row)
    picked = tl.load(logits_ptr + row * v + target).to(tl.float32)
    tl.store(row_loss_ptr + row, tl.log(tl.sum(total, axis=0)) - picked)


@triton.jit
def mean_kernel(row_loss_ptr, loss_ptr, m, TILE: tl.constexpr):
    cols = tl.arange(0, TILE)
    total = tl.zeros([TILE], tl.float32)
    for start in range(0, m, TILE):
        offsets = start + cols
        total += tl.load(row_loss_ptr + offsets, mask=offsets < m, other=0.0)
    tl.store(loss_ptr, tl.sum(total, axis=0) / m)


def solve(logits: torch.Tensor, targets: torch.Tensor, loss: torch.Tensor, m: int, v: int) -> None:
    row_loss = torch.empty(m, device=logits.device, dtype=torch.float32)
    row_loss_kernel[(m,)](logits, targets, row_loss, v, TILE=1024)
    mean_kernel[(1,)](row_loss, loss, m, TILE=1024)
