"""Expert Triton kernel for top-p sampling: a program per row, five passes over it.

The threshold t (the largest probability whose mass, the sum of probabilities >= it, is still
>= p) is found by a 32-way search over the 2^20 possible values: each pass tests 32 candidates
and keeps, besides their masses, their counts. The search keeps the mass and count at the
smallest candidate known to fail (hi + 1) and the count at lo, so when it ends at t it knows the
mass above t and how many tokens sit at t without another pass, and the nucleus's mass S follows
in integers. The last pass samples: a prefix sum in token order with a carry between tiles.
"""

import torch
import triton
import triton.language as tl

UNITS = 1 << 20  # every probability is a multiple of 1 / UNITS
WAYS = 32  # 32^4 = 2^20: four search passes
BLOCK = 256


@triton.jit
def top_p_kernel(probs_ptr, top_p_ptr, u_ptr, out_ptr, vocab, UNITS: tl.constexpr, WAYS: tl.constexpr, BLOCK: tl.constexpr):  # fmt: skip
    row = tl.program_id(0).to(tl.int64)
    row_ptr = probs_ptr + row * vocab
    p = tl.load(top_p_ptr + row)
    u = tl.load(u_ptr + row)
    unit = 1.0 / UNITS
    ways = tl.arange(0, WAYS)
    lo = 0  # mass(>= 0) = 1 >= p, and every token counts
    hi = UNITS
    count_lo = vocab
    mass_next = 0.0  # mass and count of the probabilities >= hi + 1 (none at first)
    count_next = 0
    for _ in range(4):
        width = (hi - lo + WAYS - 1) // WAYS
        cand = lo + (ways + 1) * width
        value = cand.to(tl.float32) * unit
        mass = tl.zeros([WAYS], dtype=tl.float32)
        count = tl.zeros([WAYS], dtype=tl.int32)
        for start in range(0, vocab, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            x = tl.load(row_ptr + cols, mask=cols < vocab, other=0.0)
            at_least = x[None, :] >= value[:, None]
            mass += tl.sum(tl.where(at_least, x[None, :], 0.0), axis=1)
            count += tl.sum(at_least.to(tl.int32), axis=1)
        # The passing candidates form a prefix (the mass only falls as the candidate grows).
        passed = tl.sum(((mass >= p) & (cand <= hi)).to(tl.int32), axis=0)
        last = ways == passed - 1
        count_lo = tl.where(passed > 0, tl.sum(tl.where(last, count, 0), axis=0), count_lo)
        first_failing = ways == passed
        fails_inside = lo + (passed + 1) * width <= hi
        mass_next = tl.where(fails_inside, tl.sum(tl.where(first_failing, mass, 0.0), axis=0), mass_next)
        count_next = tl.where(fails_inside, tl.sum(tl.where(first_failing, count, 0), axis=0), count_next)
        hi = tl.minimum(hi, lo + (passed + 1) * width - 1)
        lo = lo + passed * width
    t = lo.to(tl.float32) * unit
    above = mass_next
    at_t = count_lo - count_next
    # The nucleus takes the first `take` tokens at t in index order: the fewest with above + take * t >= p.
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
    block = min(BLOCK, triton.next_power_of_2(vocab))
    top_p_kernel[(batch,)](probs, top_p, uniforms, token_ids, vocab, UNITS=UNITS, WAYS=WAYS, BLOCK=block, num_warps=8)
