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
    # TODO:
    # 1. The threshold t: bisect lo = 1, hi = 2^20 (21 rounds) for the largest k with
    #    mass_at_least(row_ptr, vocab, k * UNIT, BLOCK) >= p; t = lo * UNIT. The mass above it:
    #    above = mass_at_least(..., t + UNIT, ...).
    # 2. One pass over the tiles: a token is in the nucleus if x > t, or if x == t and
    #    above + t * (number of tokens == t before it in index order) < p (a tl.cumsum of x == t
    #    within the tile plus a carry between tiles). Add up the nucleus's mass S.
    # 3. A second pass: running = carry + tl.cumsum(nucleus probabilities); the token is the
    #    smallest index in the nucleus with running > u * S. Store it as the row's token id.
    pass


def solve(probs: torch.Tensor, top_p: torch.Tensor, uniforms: torch.Tensor, token_ids: torch.Tensor, batch: int, vocab: int) -> None:  # fmt: skip
    block = min(1024, triton.next_power_of_2(vocab))
    top_p_kernel[(batch,)](probs, top_p, uniforms, token_ids, vocab, UNIT=UNIT, BLOCK=block)
