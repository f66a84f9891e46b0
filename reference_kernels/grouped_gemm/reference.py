"""Trusted reference for the grouped GEMM of MoE experts (bf16 in, fp32 accumulate, bf16 out).

Runs only in the trusted process. Layouts (contiguous, row-major):
  a               bf16  [tokens, k]          the activations, already grouped by expert
  w               bf16  [experts, n, k]      expert e's weight in a linear layer's layout
  expert_offsets  int32 [experts + 1]        rows of expert e: expert_offsets[e] <= r < expert_offsets[e + 1];
                                             expert_offsets[0] = 0, expert_offsets[experts] = tokens
  c               bf16  [tokens, n]          c[r, j] = sum_p a[r, p] * w[e(r), j, p]
Exactly active_experts experts have at least one row; the others have none (equal neighbouring
offsets), at random places in the list.
"""

from __future__ import annotations

import torch

_PARAM_SALT = 0x5A17_0017
_CHUNK = 1 << 26  # elements drawn at a time (no fp32 copy of a 2 GiB weight)
SKEW = 1.5  # sigma of the log-normal shares: the largest expert gets tens of times the smallest's rows


def expert_counts(gen: torch.Generator, tokens: int, experts: int, active_experts: int) -> torch.Tensor:
    """Rows per expert: active_experts experts get at least one row each and the remaining
    tokens - active_experts rows in log-normal shares (widely uneven, as a router's are); the
    other experts get none. At least one empty expert, where there is one, comes before an
    active one, so an empty expert never only ends the list."""
    if not 1 <= active_experts <= min(experts, tokens):
        raise ValueError("active_experts must be between 1 and min(experts, tokens)")
    order = torch.randperm(experts, generator=gen)
    active, empty = order[:active_experts], order[active_experts:]
    if empty.numel() and int(empty.min()) > int(active.max()):
        # every empty expert after the last active one: swap the first empty with the last active
        first, last = int(empty.min()), int(active.max())
        active = torch.where(active == last, first, active)
        empty = torch.where(empty == first, last, empty)
    shares = torch.exp(SKEW * torch.randn(active_experts, generator=gen, dtype=torch.float64))
    extra = tokens - active_experts
    counts_active = torch.ones(active_experts, dtype=torch.int64)
    if extra:
        picks = torch.multinomial(shares, extra, replacement=True, generator=gen)
        counts_active += torch.bincount(picks, minlength=active_experts)
    counts = torch.zeros(experts, dtype=torch.int64)
    counts[active] = counts_active
    return counts


def generate_inputs(
    seed: int, device: str = "cpu", *, tokens: int, experts: int, active_experts: int, n: int, k: int
) -> dict[str, torch.Tensor]:
    """a, w = scale * N(0, 1) + offset in bf16, scale in [0.5, 2], |offset| <= 0.1 scale (small
    common offsets, as in decode_gemm: a large one would hide low-precision errors behind one
    shared term); one scale for every expert's weight, so each expert's outputs are of the same
    size and the rms term of the tolerance is fair to all of them. Counts: expert_counts()."""
    cpu = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    scale = torch.empty(2, dtype=torch.float64).uniform_(0.5, 2.0, generator=cpu).tolist()
    offset = torch.empty(2, dtype=torch.float64).uniform_(-0.1, 0.1, generator=cpu).tolist()
    counts = expert_counts(cpu, tokens, experts, active_experts)
    offsets = torch.zeros(experts + 1, dtype=torch.int32)
    offsets[1:] = torch.cumsum(counts, 0).to(torch.int32)
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    a = torch.randn(tokens, k, generator=gen, device=device).mul_(scale[0]).add_(offset[0] * scale[0])
    w = torch.empty(experts, n, k, dtype=torch.bfloat16, device=device)
    flat = w.view(-1)
    for start in range(0, flat.numel(), _CHUNK):
        part = torch.randn(min(_CHUNK, flat.numel() - start), generator=gen, device=device)
        flat[start : start + part.numel()] = part.mul_(scale[1]).add_(offset[1] * scale[1])
    return {"a": a.to(torch.bfloat16), "w": w, "expert_offsets": offsets.to(device)}


def reference(
    a: torch.Tensor,
    w: torch.Tensor,
    expert_offsets: torch.Tensor,
    tokens: int,
    experts: int,
    active_experts: int,
    n: int,
    k: int,
) -> dict[str, torch.Tensor]:
    """Each expert's rows times its weight, exact products summed in float64."""
    c = torch.zeros(tokens, n, dtype=torch.float64, device=a.device)
    bounds = expert_offsets.tolist()
    rows = max(1, _CHUNK // max(k, 1))  # weight rows widened to float64 at a time
    for e in range(experts):
        lo, hi = bounds[e], bounds[e + 1]
        if hi > lo:
            a64 = a[lo:hi].double()
            for j in range(0, n, rows):
                c[lo:hi, j : j + rows] = a64 @ w[e, j : j + rows].double().T
    return {"c": c}


def baseline(
    a: torch.Tensor,
    w: torch.Tensor,
    expert_offsets: torch.Tensor,
    tokens: int,
    experts: int,
    active_experts: int,
    n: int,
    k: int,
) -> dict[str, torch.Tensor]:
    """Plain PyTorch, as a framework without a grouped kernel runs the experts: the offsets
    copied to the host, then one vendor GEMM per expert with rows (fp32 accumulation, one
    rounding). The point a submission's speedup is measured from."""
    c = torch.empty(tokens, n, dtype=torch.bfloat16, device=a.device)
    bounds = expert_offsets.tolist()
    for e in range(experts):
        lo, hi = bounds[e], bounds[e + 1]
        if hi > lo:
            torch.matmul(a[lo:hi], w[e].T, out=c[lo:hi])
    return {"c": c}
