"""Ladder rung 3: one pass per row. The running maximum and the running sum of exp(x - max)
are updated per tile (the sum rescaled by exp(old max - new max) when the maximum grows), so
each logit is read once; the target's logit is one scalar load. Row losses go to a scratch
vector, averaged by a second small kernel."""

import torch
import triton
import triton.language as tl


@triton.jit
def row_loss_kernel(logits_ptr, targets_ptr, row_loss_ptr, v, TILE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, TILE)
    run_max = tl.max(tl.full([TILE], float("-inf"), tl.float32), axis=0)
    run_sum = tl.sum(tl.zeros([TILE], tl.float32), axis=0)
    for start in range(0, v, TILE):
        offsets = start + cols
        x = tl.load(logits_ptr + row * v + offsets, mask=offsets < v, other=float("-inf")).to(tl.float32)
        new_max = tl.maximum(run_max, tl.max(x, axis=0))
        run_sum = run_sum * tl.exp(run_max - new_max) + tl.sum(tl.exp(x - new_max), axis=0)
        run_max = new_max
    picked = tl.load(logits_ptr + row * v + tl.load(targets_ptr + row)).to(tl.float32)
    tl.store(row_loss_ptr + row, (run_max - picked) + tl.log(run_sum))


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
    row_loss_kernel[(m,)](logits, targets, row_loss, v, TILE=2048)
    mean_kernel[(1,)](row_loss, loss, m, TILE=1024)
