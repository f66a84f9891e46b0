"""Ladder rung 1: unfused, as a framework computes it: a first kernel writes the whole
log-softmax matrix (fp32, m x v) to scratch memory, reading each row three times (maximum, sum,
write-out); a second gathers each row's target log-probability and averages them."""

import torch
import triton
import triton.language as tl


@triton.jit
def log_softmax_kernel(logits_ptr, out_ptr, v, TILE: tl.constexpr):
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
    log_total = tl.log(tl.sum(total, axis=0))
    for start in range(0, v, TILE):
        offsets = start + cols
        x = tl.load(logits_ptr + row * v + offsets, mask=offsets < v, other=0.0).to(tl.float32)
        tl.store(out_ptr + row * v + offsets, (x - maximum) - log_total, mask=offsets < v)


@triton.jit
def gather_mean_kernel(log_probs_ptr, targets_ptr, loss_ptr, m, v, TILE: tl.constexpr):
    rows = tl.arange(0, TILE)
    total = tl.zeros([TILE], tl.float32)
    for start in range(0, m, TILE):
        r = start + rows
        target = tl.load(targets_ptr + r, mask=r < m, other=0)
        total += tl.load(log_probs_ptr + r.to(tl.int64) * v + target, mask=r < m, other=0.0)
    tl.store(loss_ptr, -tl.sum(total, axis=0) / m)


def solve(logits: torch.Tensor, targets: torch.Tensor, loss: torch.Tensor, m: int, v: int) -> None:
    log_probs = torch.empty(m, v, device=logits.device, dtype=torch.float32)
    log_softmax_kernel[(m,)](logits, log_probs, v, TILE=1024)
    gather_mean_kernel[(1,)](log_probs, targets, loss, m, v, TILE=1024)
