"""No sort: the threshold by a bisection over the 2^20 possible probabilities, vectorized over the
rows (21 comparisons of the whole batch), then the nucleus as a mask and one cumulative sum."""

import torch

UNITS = 1 << 20


def solve(probs: torch.Tensor, top_p: torch.Tensor, uniforms: torch.Tensor, token_ids: torch.Tensor, batch: int, vocab: int) -> None:  # fmt: skip
    lo = torch.ones(batch, 1, dtype=torch.int64, device=probs.device)
    hi = torch.full_like(lo, UNITS)
    for _ in range(21):
        mid = (lo + hi + 1) // 2
        ok = torch.where(probs >= mid / UNITS, probs, 0.0).sum(dim=1, keepdim=True) >= top_p[:, None]
        lo, hi = torch.where(ok, mid, lo), torch.where(ok, hi, mid - 1)
    t = lo / UNITS
    above = torch.where(probs > t, probs, 0.0).sum(dim=1, keepdim=True)
    at_t = probs == t
    # tokens at t join in index order while the mass before them is below top_p
    before = torch.cumsum(at_t, dim=1) - at_t.long()
    members = (probs > t) | (at_t & (above + t * before < top_p[:, None]))
    running = torch.cumsum(torch.where(members, probs, 0.0), dim=1)
    hit = members & (running > uniforms[:, None] * running[:, -1:])
    token_ids.copy_(hit.int().argmax(dim=1))
