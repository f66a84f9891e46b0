"""Trusted reference for speculative decoding verification. Runs only in the trusted process.

Layouts (contiguous, row-major), K = num_draft:
  draft_token_ids  int32 [batch, K]             the draft model's proposals
  draft_probs      fp32  [batch, K, vocab]      q_i: the draft's distribution at position i
  target_probs     fp32  [batch, K + 1, vocab]  p_i: the target's distribution at position i
  accept_uniforms  fp32  [batch, K]             u_i in [0, 1)
  sample_uniforms  fp32  [batch]                w in [0, 1)
  num_accepted     int32 [batch]                n: the length of the accepted prefix, 0 .. K
  next_token       int32 [batch]                the corrected token (n < K) or the bonus token (n == K)
Per sequence: draft token x_i is accepted iff u_i * q_i(x_i) < p_i(x_i) (u_i < p/q); n counts the
accepted tokens before the first rejection. The next token is drawn with w from
d = max(0, p_n - q_n) when n < K, or d = p_K when n == K: the smallest token v (in index order)
whose running sum d_0 + ... + d_v is > w * sum(d).

Every probability is a multiple of 2^-20 and every row adds up to exactly 1, so p - q, the residual
and all its sums are exact in fp32. The generator decides each sequence's n and keeps every
acceptance test and every sample away from its threshold (generate_inputs), except the planted
ties u_i * q == p, which the strict comparison rejects.
"""

from __future__ import annotations

import torch

_PARAM_SALT = 0x5A17_0018
UNITS = 1 << 20  # a row's total, in units of 2^-20
FRACTION_LO, FRACTION_HI = 0.3, 0.7  # where w * Z falls inside its unit
CONTINUE = 0.75  # the chance that a rejecting sequence accepts one more position


def generate_inputs(
    seed: int, device: str = "cpu", *, batch: int, num_draft: int, vocab: int
) -> dict[str, torch.Tensor]:
    """Target rows softmax(N(0, 1) * sigma), draft rows softmax of the same logits plus N(0, tau)
    noise (a draft model that mostly agrees), both rounded to multiples of 2^-20 adding up to
    exactly 1 (largest remainder).

    Each sequence's accepted length n is chosen first: batch // 4 sequences (random ones) accept
    all K draft tokens, the others reject at position n with P(n) proportional to 0.75^n. Before n,
    x_i is drawn from q_i among tokens with p_i > 0 and u_i <= 0.999 min(1, p/q); at n, x_n is
    drawn from q_n among tokens with p/q <= 1 - 2^-10 and u_n is at least 1% of the way from p/q
    to 1, except in a third of the rejecting sequences, where x_n is a token whose p/q is exact in
    fp32 (q / gcd(p, q) a power of two) and u_n = p/q exactly: a tie that u * q < p rejects and
    u <= p / q accepts. After n, x_i from q_i and u_i uniform. w = (m + f) / Z for a unit m drawn
    by the mass of d and f in [0.3, 0.7]: w * Z lies at least a quarter unit from every running
    sum."""
    k = num_draft
    gen_params = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    sigma = float(torch.empty(1, dtype=torch.float64).uniform_(1.0, 4.0, generator=gen_params))
    tau = float(torch.empty(1, dtype=torch.float64).uniform_(0.3, 1.5, generator=gen_params))
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    logits = torch.randn(batch, k + 1, vocab, generator=gen, device=device, dtype=torch.float64) * sigma
    noise = torch.randn(batch, k, vocab, generator=gen, device=device, dtype=torch.float64) * tau
    p = _to_units(torch.softmax(logits, dim=2))
    q = _to_units(torch.softmax(logits[:, :k] + noise, dim=2))
    n = _accepted_lengths(batch, k, gen, device)
    ids = torch.zeros(batch, k, dtype=torch.long, device=device)
    g = torch.rand(batch, k, generator=gen, device=device, dtype=torch.float64).tolist()
    u = torch.zeros(batch, k, dtype=torch.float64, device=device)
    tie = (torch.rand(batch, generator=gen, device=device) < 1 / 3).tolist()
    for b in range(batch):
        i, stop = 0, int(n[b])
        while i < k:
            pi, qi = p[b, i], q[b, i]
            if i < stop:
                choice = _acceptance(pi, qi, g[b][i], gen)
                if choice is None:  # no token of p > 0 and q > 0: this position rejects instead
                    stop = i
                    continue
            elif i == stop:
                choice = _rejection(pi, qi, tie[b], g[b][i], gen)
                if choice is None:  # p and q too close to reject (tiny vocabularies): accept instead
                    stop = i + 1
                    continue
            else:
                choice = _draw(qi, gen), g[b][i]
            ids[b, i], u[b, i] = choice
            i += 1
        n[b] = stop
    w = _sample_uniforms(p, q, n, gen)
    return {
        "draft_token_ids": ids.to(torch.int32),
        "draft_probs": (q.double() / UNITS).float(),
        "target_probs": (p.double() / UNITS).float(),
        "accept_uniforms": u.float(),
        "sample_uniforms": w.float(),
    }


def _to_units(probs: torch.Tensor) -> torch.Tensor:
    """probs * 2^20 rounded so that each row adds up to exactly 2^20: floors, then one more unit
    to the entries with the largest remainders (equal remainders by index)."""
    scaled = probs * UNITS
    units = scaled.floor().long()
    missing = UNITS - units.sum(-1, keepdim=True)
    rank = torch.argsort(torch.argsort(-(scaled - units), dim=-1, stable=True), dim=-1)
    return units + (rank < missing).long()


def _accepted_lengths(batch: int, k: int, gen: torch.Generator, device: str) -> torch.Tensor:
    """batch // 4 sequences accept all k; the others n = i with probability proportional to 0.75^i."""
    weights = torch.tensor([CONTINUE**i for i in range(k)], dtype=torch.float64, device=device)
    n = torch.multinomial(weights.expand(batch, k), 1, replacement=True, generator=gen).squeeze(1)
    full = torch.randperm(batch, generator=gen, device=device)[: batch // 4]
    n[full] = k
    return n


def _draw(weights: torch.Tensor, gen: torch.Generator) -> int:
    """A token drawn in proportion to integer weights (not all zero)."""
    return int(torch.multinomial(weights.double(), 1, generator=gen))


def _acceptance(p: torch.Tensor, q: torch.Tensor, g: float, gen: torch.Generator) -> tuple[int, float] | None:
    """(x, u) that accepts with u * q at least one unit below p: x from q among tokens with p > 0,
    u = g (min(p, q) - 1) / q. None when no token has both p > 0 and q > 0."""
    weights = q * (p > 0)
    if int(weights.sum()) == 0:
        return None
    x = _draw(weights, gen)
    px, qx = int(p[x]), int(q[x])
    return x, g * (min(px, qx) - 1) / qx


def _rejection(p: torch.Tensor, q: torch.Tensor, tie: bool, g: float, gen: torch.Generator) -> tuple[int, float] | None:
    """(x, u) that rejects: a planted tie u = p/q (exact in fp32) when asked and one exists, else
    x from q among tokens with q - p >= 2 units and u * q between p + 1 and q - 1 units. None
    when no token has q - p >= 2."""
    if tie:
        # p/q is exact in fp32 when q / gcd(p, q) is a power of two (p < q <= 2^20)
        reduced = q // torch.gcd(p, q).clamp(min=1)
        exact = (q > p) & ((reduced & (reduced - 1)) == 0)
        if bool(exact.any()):
            x = _draw(q * exact, gen)
            return x, int(p[x]) / int(q[x])
    room = q - p >= 2
    if not bool(room.any()):
        return None
    x = _draw(q * room, gen)
    px, qx = int(p[x]), int(q[x])
    return x, (px + 1 + (qx - px - 2) * g) / qx


def _sample_uniforms(p: torch.Tensor, q: torch.Tensor, n: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    weights = _next_token_weights(p, q, n)
    mass = weights.sum(1)
    device = p.device
    draw = (torch.rand(len(n), generator=gen, device=device, dtype=torch.float64) * mass).floor()
    f = torch.empty(len(n), dtype=torch.float64, device=device).uniform_(FRACTION_LO, FRACTION_HI, generator=gen)
    return (draw + f) / mass


def _next_token_weights(p: torch.Tensor, q: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
    """d per sequence in units: max(0, p_n - q_n) when n < K, p_K when n == K."""
    k = q.shape[1]
    rows = torch.arange(len(n), device=p.device)
    p_n = p[rows, n]
    q_n = q[rows, n.clamp(max=k - 1)]
    residual = (p_n - q_n).clamp(min=0)
    return torch.where((n < k)[:, None], residual, p_n)


def reference(
    draft_token_ids: torch.Tensor,
    draft_probs: torch.Tensor,
    target_probs: torch.Tensor,
    accept_uniforms: torch.Tensor,
    sample_uniforms: torch.Tensor,
    batch: int,
    num_draft: int,
    vocab: int,
) -> dict[str, torch.Tensor]:
    """The rule on integer units (exact); u * q and w * Z in float64 (exact products)."""
    ids = draft_token_ids.long()[:, :, None]
    q = (draft_probs.double() * UNITS).round().long()
    p = (target_probs.double() * UNITS).round().long()
    q_at = q.gather(2, ids).squeeze(2)
    p_at = p[:, :num_draft].gather(2, ids).squeeze(2)
    accepted = accept_uniforms.double() * q_at.double() < p_at.double()
    n = torch.cumprod(accepted.long(), dim=1).sum(1)
    weights = _next_token_weights(p, q, n)
    threshold = sample_uniforms.double() * weights.sum(1).double()
    token = (torch.cumsum(weights, dim=1).double() <= threshold[:, None]).sum(1)
    return {"num_accepted": n.to(torch.int32), "next_token": token.to(torch.int32)}


def baseline(
    draft_token_ids: torch.Tensor,
    draft_probs: torch.Tensor,
    target_probs: torch.Tensor,
    accept_uniforms: torch.Tensor,
    sample_uniforms: torch.Tensor,
    batch: int,
    num_draft: int,
    vocab: int,
) -> dict[str, torch.Tensor]:
    """Plain PyTorch in fp32, as a framework without a fused kernel verifies: gathers of p and q at
    the draft tokens, a cumulative product of the acceptances, the residual of every sequence's
    row n, a cumulative sum and a search for w * Z. The point a submission's speedup is measured
    from."""
    ids = draft_token_ids.long()[:, :, None]
    q_at = draft_probs.gather(2, ids).squeeze(2)
    p_at = target_probs[:, :num_draft].gather(2, ids).squeeze(2)
    n = torch.cumprod((accept_uniforms * q_at < p_at).int(), dim=1).sum(1)
    rows = torch.arange(batch, device=draft_probs.device)
    p_n = target_probs[rows, n]
    q_n = draft_probs[rows, n.clamp(max=num_draft - 1)]
    weights = torch.where((n < num_draft)[:, None], (p_n - q_n).clamp(min=0), p_n)
    running = torch.cumsum(weights, dim=1)
    threshold = (sample_uniforms * running[:, -1])[:, None]
    token = torch.searchsorted(running, threshold, right=True).squeeze(1).clamp_(max=vocab - 1)
    return {"num_accepted": n.to(torch.int32), "next_token": token.to(torch.int32)}
