"""Expert Triton solution for the mean cross-entropy loss (obeys the submission contract).

- Long rows (v > 4096): one program per row reads it once, in tiles of 8192 logits (16 KiB), with
  the online log-sum-exp: per tile one maximum, one rescale of the running sum, and one exp2 per
  logit (exp(x - max) as exp2((x - max) * log2(e)): one MUFU instruction). The target's logit is one scalar load.
  Loads are marked evict-first (every logit is read exactly once).
- Short rows: several rows per program, each held whole in registers, exact two-step
  statistics (maximum, then sum) per row, ~8 KiB per program.
Each program writes its rows' losses to a scratch vector; a second, one-program kernel adds them
in a fixed order (no atomics: the result does not depend on scheduling) and divides by m.
The loss of a row is (max - x_t) + log(sum): max and x_t are bf16 values, their difference is exact.
"""

import torch
import triton
import triton.language as tl

SHORT_ROW = 4096
TILE = 8192


@triton.jit
def _long_rows(logits_ptr, targets_ptr, row_loss_ptr, v, TILE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, TILE)
    base = logits_ptr + row * v
    run_max = tl.max(tl.full([TILE], float("-inf"), tl.float32), axis=0)
    run_sum = tl.sum(tl.zeros([TILE], tl.float32), axis=0)
    for start in range(0, v, TILE):
        offsets = start + cols
        x = tl.load(base + offsets, mask=offsets < v, other=float("-inf"), eviction_policy="evict_first")
        x = x.to(tl.float32)
        new_max = tl.maximum(run_max, tl.max(x, axis=0))
        # x - new_max is exact (bf16 values); exp(d) = exp2(d * log2(e)).
        scaled = tl.sum(tl.exp2((x - new_max) * 1.4426950408889634), axis=0)
        run_sum = run_sum * tl.exp2((run_max - new_max) * 1.4426950408889634) + scaled
        run_max = new_max
    picked = tl.load(base + tl.load(targets_ptr + row)).to(tl.float32)
    tl.store(row_loss_ptr + row, (run_max - picked) + tl.log(run_sum))


@triton.jit
def _short_rows(logits_ptr, targets_ptr, row_loss_ptr, m, v, ROWS: tl.constexpr, BLOCK_V: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_V)
    row_ok = rows < m
    mask = row_ok[:, None] & (cols[None, :] < v)
    base = logits_ptr + rows.to(tl.int64) * v
    x = tl.load(base[:, None] + cols[None, :], mask=mask, other=float("-inf"), eviction_policy="evict_first")
    x = x.to(tl.float32)
    top = tl.where(row_ok, tl.max(x, axis=1), 0.0)
    total = tl.sum(tl.exp2((x - top[:, None]) * 1.4426950408889634), axis=1)
    target = tl.load(targets_ptr + rows, mask=row_ok, other=0)
    picked = tl.load(base + target, mask=row_ok, other=0.0).to(tl.float32)
    tl.store(row_loss_ptr + rows, (top - picked) + tl.log(tl.where(row_ok, total, 1.0)), mask=row_ok)


@triton.jit
def _mean(row_loss_ptr, loss_ptr, m, TILE: tl.constexpr):
    cols = tl.arange(0, TILE)
    total = tl.zeros([TILE], tl.float32)
    for start in range(0, m, TILE):
        offsets = start + cols
        total += tl.load(row_loss_ptr + offsets, mask=offsets < m, other=0.0)
    tl.store(loss_ptr, tl.sum(total, axis=0) / m)


def solve(logits: torch.Tensor, targets: torch.Tensor, loss: torch.Tensor, m: int, v: int) -> None:
    row_loss = torch.empty(m, device=logits.device, dtype=torch.float32)
    if v <= SHORT_ROW:
        block_v = triton.next_power_of_2(v)
        rows = max(1, min(64, 4096 // block_v))
        warps = max(1, min(8, rows * block_v // 512))
        _short_rows[(triton.cdiv(m, rows),)](
            logits, targets, row_loss, m, v, ROWS=rows, BLOCK_V=block_v, num_warps=warps
        )
    else:
        _long_rows[(m,)](logits, targets, row_loss, v, TILE=TILE, num_warps=16)
    _mean[(1,)](row_loss, loss, m, TILE=1024, num_warps=4)
