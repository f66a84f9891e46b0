"""Trusted reference for top-p (nucleus) sampling. Runs only in the trusted process.

Layouts (contiguous, row-major):
  probs      fp32  [batch, vocab]  each row a distribution: multiples of 2^-20 adding up to exactly 1
  top_p      fp32  [batch]         in (0, 1]
  uniforms   fp32  [batch]         in [0, 1)
  token_ids  int32 [batch]         the sampled token of each row
For each row:
  order     the tokens by descending probability, equal probabilities by ascending index
  nucleus   the first k tokens of that order, k the smallest count whose probabilities add up to
            >= top_p (inclusive: the token that crosses top_p is in)
  S         the nucleus's mass
  token     in ascending token index, the first nucleus token whose running nucleus mass (its own
            included) is > uniforms * S

Every probability is a multiple of 2^-20 and a row adds up to 1, so every partial sum of a row is
an exact fp32 value in any order: membership is decided exactly. The generator keeps
uniforms * S at least a quarter of 2^-20 away from every running sum (module docstring of
generate_inputs), so the one product or quotient a kernel rounds cannot move the sample.
"""

from __future__ import annotations

import torch

_PARAM_SALT = 0x5A17_0017
UNIT_BITS = 20
UNITS = 1 << UNIT_BITS  # a row's total, in units of 2^-20
# Where uniforms * S falls inside its unit: far from both ends (an fp32 product is off by at most
# 2^-4 of a unit, a quotient running sum / S compared with u by as much; see statement.md).
FRACTION_LO, FRACTION_HI = 0.3, 0.7

# Row kinds: how top_p (and, for some, the uniform) is chosen.
NATURAL, EXACT_P, BOUNDARY_TIE, WHOLE, GREEDY_TIE = range(5)


def generate_inputs(seed: int, device: str = "cpu", *, batch: int, vocab: int) -> dict[str, torch.Tensor]:
    """probs: softmax(N(0, 1) * sigma_row) with sigma_row in [0.5, 6] (flat to peaked rows),
    rounded to multiples of 2^-20 by the largest-remainder rule so that a row adds up to exactly
    2^20 units; tokens below half a unit get 0 (a realistic vocabulary's far tail).

    Per row, at random, one of five kinds:
      natural       top_p uniform in [0.5, 0.99], the sample drawn by mass;
      exact p       top_p equal to a cumulative sum of the sorted order (>= against > decides);
      boundary tie  the token at the nucleus's edge has equal-probability tokens on both sides of
                    the edge (only the tie rule, lower index first, decides who is in), and the
                    sample lands on the lowest-index one that is in;
      whole         top_p = 1: every token of positive probability;
      greedy tie    the two largest probabilities made equal and top_p small: the nucleus is the
                    lower-index one of them.
    uniforms: u = (m + f) / S in fp32 for a unit m drawn by mass (or the boundary token's) and
    f in [0.3, 0.7]: u * S lies at least a quarter unit from every running sum."""
    gen_params = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    sigma_lo = float(torch.empty(1, dtype=torch.float64).uniform_(0.5, 2.0, generator=gen_params))
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    sigma = torch.empty(batch, 1, device=device).uniform_(sigma_lo, 6.0, generator=gen)
    logits = torch.randn(batch, vocab, generator=gen, device=device) * sigma
    units = _to_units(torch.softmax(logits.double(), dim=1), gen, device)
    kind = torch.randint(0, 5, (batch,), generator=gen, device=device)
    if vocab >= 3:
        _tie_the_top(units, kind == GREEDY_TIE)
    top_p = torch.empty(batch, dtype=torch.float64, device=device).uniform_(0.5, 0.99, generator=gen)
    top_p = top_p.float().double()  # the fp32 value the kernel sees
    order, csum = _sorted_cumsum(units)
    positive = (units > 0).sum(1)
    rows = torch.arange(batch, device=device)
    # exact p: a cumulative sum of the sorted order, at a random rank among the positive tokens
    rank = (torch.rand(batch, generator=gen, device=device, dtype=torch.float64) * (positive - 1)).long()
    exact = (kind == EXACT_P) & (positive >= 2)
    top_p[exact] = csum[rows[exact], rank[exact]].double() / UNITS
    top_p[kind == WHOLE] = 1.0
    greedy = kind == GREEDY_TIE
    top_p[greedy] = units.amax(1)[greedy].double() / UNITS / 2
    steer = _plant_boundary_ties(units, order, csum, top_p, kind == BOUNDARY_TIE)
    members, mass = nucleus(units, top_p)
    running = torch.cumsum(units * members, dim=1)
    draw = (torch.rand(batch, generator=gen, device=device, dtype=torch.float64) * mass).floor().long()
    # m: the unit drawn by mass, the top unit of the steered token's interval, or for exact p rows
    # a unit next to the token that c_k > p would add (_next_to_the_extra_token)
    m = torch.where(steer >= 0, running[rows, steer.clamp(min=0)] - 1, draw)
    _next_to_the_extra_token(m, units, order, members, running, rank, exact)
    fraction = torch.empty(batch, dtype=torch.float64, device=device).uniform_(FRACTION_LO, FRACTION_HI, generator=gen)
    uniforms = ((m.double() + fraction) / mass.double()).float()
    probs = units.double().div_(UNITS).float()
    return {"probs": probs.contiguous(), "top_p": top_p.float().contiguous(), "uniforms": uniforms.contiguous()}


def _to_units(p: torch.Tensor, gen: torch.Generator, device: str) -> torch.Tensor:
    """p * 2^20 rounded so that each row adds up to exactly 2^20: floors, then one more unit to
    the tokens with the largest remainders (ties in the remainder by index)."""
    scaled = p * UNITS
    units = scaled.floor().long()
    missing = UNITS - units.sum(1, keepdim=True)
    remainder_rank = torch.argsort(torch.argsort(-(scaled - units), dim=1, stable=True), dim=1)
    return units + (remainder_rank < missing).long()


def _sorted_cumsum(units: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    order = torch.sort(units, dim=1, descending=True, stable=True).indices  # equal: lower index first
    return order, torch.cumsum(units.gather(1, order), dim=1)


def _tie_the_top(units: torch.Tensor, rows: torch.Tensor) -> None:
    """Make the two largest probabilities of the chosen rows equal (their mean, an odd unit left
    over given to the row's last-ranked token): the greedy rows' top is a tie."""
    for r in rows.nonzero().flatten().tolist():
        order = torch.sort(units[r], descending=True, stable=True).indices
        a, b, last = int(order[0]), int(order[1]), int(order[-1])
        total = int(units[r, a] + units[r, b])
        units[r, a] = units[r, b] = total // 2
        units[r, last] += total % 2


def _plant_boundary_ties(
    units: torch.Tensor, order: torch.Tensor, csum: torch.Tensor, top_p: torch.Tensor, rows: torch.Tensor
) -> torch.Tensor:
    """For the chosen rows, top_p inside a run of equal probabilities of the sorted order (a rank
    r with sorted[r] == sorted[r + 1], top_p half a unit above the sum before r): the nucleus takes
    the lower-index members of the run. Returns, per row, the token the sample is steered to (the
    lowest-index member of the run that is in), or -1."""
    steer = torch.full((units.shape[0],), -1, dtype=torch.long, device=units.device)
    for r in rows.nonzero().flatten().tolist():
        values = units[r, order[r]]
        ties = ((values[:-1] == values[1:]) & (values[:-1] > 0)).nonzero().flatten()
        if ties.numel() == 0:
            continue
        at = int(ties[len(ties) // 2])  # a rank whose next rank has the same probability
        value = int(values[at])
        before = int(csum[r, at]) - value
        top_p[r] = (before + 0.5) / UNITS
        first_in_run = int((values == value).nonzero()[0])
        run_tokens = order[r, first_in_run : at + 1]  # the run's members that are in (lower indices)
        steer[r] = int(run_tokens.min())
    return steer


def _next_to_the_extra_token(
    m: torch.Tensor,
    units: torch.Tensor,
    order: torch.Tensor,
    members: torch.Tensor,
    running: torch.Tensor,
    rank: torch.Tensor,
    rows: torch.Tensor,
) -> None:
    """Exact p rows: a nucleus ending at c_k > p instead of c_k >= p would add token e (rank k + 1).
    The sample is steered to the bottom unit of the first nucleus token after e in token order, or,
    with none after it, to the top unit of the last one: there a nucleus with e picks another token."""
    for r in rows.nonzero().flatten().tolist():
        e = int(order[r, int(rank[r]) + 1])
        inside = members[r].nonzero().flatten()
        after = inside[inside > e]
        if after.numel():
            a = int(after[0])
            m[r] = running[r, a] - units[r, a]
        else:
            m[r] = running[r, int(inside[-1])] - 1


def nucleus(units: torch.Tensor, top_p: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(member mask in token order as int64, the nucleus's mass in units) for probabilities in
    units and top_p in float64 (exact: fp32 values)."""
    order, csum = _sorted_cumsum(units)
    k = (csum.double() < top_p.double()[:, None] * UNITS).sum(1, keepdim=True) + 1
    rank = torch.arange(units.shape[1], device=units.device).expand_as(units)
    members = torch.zeros_like(units).scatter_(1, order, (rank < k).long())
    return members, csum.gather(1, k - 1).squeeze(1)


def reference(
    probs: torch.Tensor, top_p: torch.Tensor, uniforms: torch.Tensor, batch: int, vocab: int
) -> dict[str, torch.Tensor]:
    """The rule on integer units (exact), the threshold uniforms * S in float64 (exact: a 24-bit
    by 21-bit product)."""
    units = (probs.double() * UNITS).round().long()
    members, mass = nucleus(units, top_p)
    running = torch.cumsum(units * members, dim=1)
    threshold = uniforms.double() * mass.double()
    token = (running.double() <= threshold[:, None]).sum(1)  # running sums are non-decreasing
    return {"token_ids": token.to(torch.int32)}


def baseline(
    probs: torch.Tensor, top_p: torch.Tensor, uniforms: torch.Tensor, batch: int, vocab: int
) -> dict[str, torch.Tensor]:
    """Plain PyTorch in fp32, as a framework without a fused kernel samples: a stable descending
    sort, a cumulative sum, the nucleus as a mask scattered back to token order, a second
    cumulative sum in token order and a search for the uniform. The point a submission's speedup
    is measured from."""
    sorted_probs, order = torch.sort(probs, dim=1, descending=True, stable=True)
    csum = torch.cumsum(sorted_probs, dim=1)
    k = (csum < top_p[:, None]).sum(1, keepdim=True) + 1
    keep = torch.arange(vocab, device=probs.device)[None, :] < k
    members = torch.zeros_like(keep).scatter_(1, order, keep)
    running = torch.cumsum(torch.where(members, probs, torch.zeros_like(probs)), dim=1)
    threshold = (uniforms * running[:, -1])[:, None]
    token = torch.searchsorted(running, threshold, right=True).squeeze(1).clamp_(max=vocab - 1)
    return {"token_ids": token.to(torch.int32)}
