"""A 16-way search for the threshold (five passes instead of 21), then one pass for the mass above
it and the count at it, the nucleus's mass from integers, and one sampling pass."""

import torch
import triton
import triton.language as tl

UNITS = 1 << 20  # every probability is a multiple of 1 / UNITS
WAYS = 16


@triton.jit
def top_p_kernel(probs_ptr, top_p_ptr, u_ptr, out_ptr, vocab, UNITS: tl.constexpr, WAYS: tl.constexpr, BLOCK: tl.constexpr):  # fmt: skip
    row = tl.program_id(0).to(tl.int64)
    row_ptr = probs_ptr + row * vocab
    p = tl.load(top_p_ptr + row)
    u = tl.load(u_ptr + row)
    unit = 1.0 / UNITS
    # The threshold: the largest k (in units) whose mass, the sum of probabilities >= k, is >= p.
    # Each pass tests WAYS candidates spread over (lo, hi]; the ones that pass form a prefix.
    lo = 1
    hi = UNITS
    ways = tl.arange(0, WAYS) + 1
    for _ in range(5):  # 16^5 = 2^20
        width = (hi - lo + WAYS - 1) // WAYS
        cand = lo + ways * width
        value = cand.to(tl.float32) * unit
        mass = tl.zeros([WAYS], dtype=tl.float32)
        for start in range(0, vocab, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            x = tl.load(row_ptr + cols, mask=cols < vocab, other=0.0)
            mass += tl.sum(tl.where(x[None, :] >= value[:, None], x[None, :], 0.0), axis=1)
        passed = tl.sum(((mass >= p) & (cand <= hi)).to(tl.int32), axis=0)
        hi = tl.minimum(hi, lo + (passed + 1) * width - 1)
        lo = lo + passed * width
    t = lo.to(tl.float32) * unit
    above = 0.0
    at_t = 0
    for start in range(0, vocab, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(row_ptr + cols, mask=cols < vocab, other=0.0)
        above += tl.sum(tl.where(x > t, x, 0.0), axis=0)
        at_t += tl.sum((x == t).to(tl.int32), axis=0)
    # The nucleus takes the first `take` tokens at t (index order): the fewest with above + take * t >= p.
    p_units = p * UNITS  # exact: a power-of-two scaling
    need = p_units.to(tl.int32)
    need += (need.to(tl.float32) < p_units).to(tl.int32)  # ceil
    above_units = (above * UNITS).to(tl.int32)
    take = tl.minimum((need - above_units + lo - 1) // lo, at_t)
    target = u * (above + take.to(tl.float32) * t)
    carry = 0.0
    seen_t = 0
    token = vocab
    for start in range(0, vocab, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(row_ptr + cols, mask=cols < vocab, other=0.0)
        is_t = (x == t).to(tl.int32)
        before = seen_t + tl.cumsum(is_t, axis=0) - is_t
        member = (x > t) | ((is_t != 0) & (before < take))
        kept = tl.where(member, x, 0.0)
        running = carry + tl.cumsum(kept, axis=0)
        token = tl.minimum(token, tl.min(tl.where(member & (running > target), cols, vocab), axis=0))
        carry += tl.sum(kept, axis=0)
        seen_t += tl.sum(is_t, axis=0)
    tl.store(out_ptr + row, token)


def solve(probs: torch.Tensor, top_p: torch.Tensor, uniforms: torch.Tensor, token_ids: torch.Tensor, batch: int, vocab: int) -> None:  # fmt: skip
    block = min(256, triton.next_power_of_2(vocab))
    top_p_kernel[(batch,)](probs, top_p, uniforms, token_ids, vocab, UNITS=UNITS, WAYS=WAYS, BLOCK=block, num_warps=8)
