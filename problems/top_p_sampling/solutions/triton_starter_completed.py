import torch
import triton
import triton.language as tl

UNIT = 1.0 / (1 << 20)  # every probability is a multiple of 2^-20


@triton.jit
def mass_at_least(row_ptr, vocab, v, BLOCK: tl.constexpr):
    """Sum of the row's probabilities that are >= v (exact: multiples of 2^-20)."""
    total = 0.0
    for start in range(0, vocab, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(row_ptr + cols, mask=cols < vocab, other=0.0)
        total += tl.sum(tl.where(x >= v, x, 0.0), axis=0)
    return total


@triton.jit
def top_p_kernel(probs_ptr, top_p_ptr, u_ptr, out_ptr, vocab, UNIT: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    row_ptr = probs_ptr + row * vocab
    p = tl.load(top_p_ptr + row)
    u = tl.load(u_ptr + row)
    # The threshold: the largest t = k * 2^-20 whose mass (probabilities >= t) is still >= p.
    lo = 1
    hi = 1 << 20
    for _ in range(21):
        mid = (lo + hi + 1) // 2
        ok = mass_at_least(row_ptr, vocab, mid * UNIT, BLOCK) >= p
        lo = tl.where(ok, mid, lo)
        hi = tl.where(ok, hi, mid - 1)
    t = lo * UNIT
    above = mass_at_least(row_ptr, vocab, t + UNIT, BLOCK)
    # The nucleus: every token above t, and tokens at t in index order while the mass before them is < p.
    mass = 0.0
    at_t = 0
    for start in range(0, vocab, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(row_ptr + cols, mask=cols < vocab, other=0.0)
        is_t = x == t
        before = at_t + tl.cumsum(is_t.to(tl.int32), axis=0) - is_t.to(tl.int32)
        member = (x > t) | (is_t & (above + t * before.to(tl.float32) < p))
        mass += tl.sum(tl.where(member, x, 0.0), axis=0)
        at_t += tl.sum(is_t.to(tl.int32), axis=0)
    # The sample: in token order, the first nucleus token whose running mass is > u * S.
    target = u * mass
    carry = 0.0
    at_t = 0
    token = vocab
    for start in range(0, vocab, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(row_ptr + cols, mask=cols < vocab, other=0.0)
        is_t = x == t
        before = at_t + tl.cumsum(is_t.to(tl.int32), axis=0) - is_t.to(tl.int32)
        member = (x > t) | (is_t & (above + t * before.to(tl.float32) < p))
        kept = tl.where(member, x, 0.0)
        running = carry + tl.cumsum(kept, axis=0)
        hit = member & (running > target)
        token = tl.minimum(token, tl.min(tl.where(hit, cols, vocab), axis=0))
        carry += tl.sum(kept, axis=0)
        at_t += tl.sum(is_t.to(tl.int32), axis=0)
    tl.store(out_ptr + row, token)


def solve(probs: torch.Tensor, top_p: torch.Tensor, uniforms: torch.Tensor, token_ids: torch.Tensor, batch: int, vocab: int) -> None:  # fmt: skip
    block = min(1024, triton.next_power_of_2(vocab))
    top_p_kernel[(batch,)](probs, top_p, uniforms, token_ids, vocab, UNIT=UNIT, BLOCK=block)
