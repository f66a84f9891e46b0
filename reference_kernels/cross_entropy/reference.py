"""Trusted reference for the mean cross-entropy loss over bf16 logits. Runs only in the trusted process."""

from __future__ import annotations

import torch

_PARAM_SALT = 0x5A17_0010
_CHUNK = 1 << 24  # logits drawn and reduced at a time (no fp32 or fp64 copy of a 1 GiB matrix)


def generate_inputs(seed: int, device: str = "cpu", *, m: int, v: int) -> dict[str, torch.Tensor]:
    """logits = scale * N(0, 1) + offset in bf16 (scale in [0.5, 4], offset in [-8, 8]); in a
    share of the rows (10-40%) one token gets a logit between 90 and 110, far above the rest, as
    a confident prediction does: exp() of it overflows fp32, so a kernel that does not subtract
    the row maximum fails. targets uniform over the vocabulary, except that a quarter of the rows
    target their own maximum (a loss near 0) and, with two or more rows, tokens 0 and v - 1 are
    always among the targets."""
    gen_params = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    scale = float(torch.empty(1, dtype=torch.float64).uniform_(0.5, 4.0, generator=gen_params))
    offset = float(torch.empty(1, dtype=torch.float64).uniform_(-8.0, 8.0, generator=gen_params))
    spike_share = float(torch.empty(1, dtype=torch.float64).uniform_(0.1, 0.4, generator=gen_params))
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    logits = torch.empty(m, v, dtype=torch.bfloat16, device=device)
    step = max(1, _CHUNK // v)
    for start in range(0, m, step):
        rows = min(step, m - start)
        logits[start : start + rows] = torch.randn(rows, v, generator=gen, device=device).mul_(scale).add_(offset)
    spiked = torch.rand(m, generator=gen, device=device) < spike_share
    where = torch.randint(0, v, (m,), generator=gen, device=device)
    heights = torch.empty(m, device=device).uniform_(90.0, 110.0, generator=gen)
    rows = torch.arange(m, device=device)
    logits[rows[spiked], where[spiked]] = heights[spiked].to(torch.bfloat16)
    targets = torch.randint(0, v, (m,), generator=gen, device=device)
    to_max = torch.rand(m, generator=gen, device=device) < 0.25
    for start in range(0, m, step):
        part = slice(start, start + step)
        best = logits[part].argmax(dim=1)
        targets[part] = torch.where(to_max[part], best, targets[part])
    if m >= 2:
        edge = torch.randperm(m, generator=gen, device=device)[:2]
        targets[edge[0]] = 0
        targets[edge[1]] = v - 1
    return {"logits": logits, "targets": targets.to(torch.int32)}


def reference(logits: torch.Tensor, targets: torch.Tensor, m: int, v: int) -> dict[str, torch.Tensor]:
    """mean over rows of logsumexp(row) - row[target], in fp64 (a slice of rows at a time)."""
    total = torch.zeros((), dtype=torch.float64, device=logits.device)
    step = max(1, _CHUNK // v)
    for start in range(0, m, step):
        part = logits[start : start + step].double()
        picked = part.gather(1, targets[start : start + step].long()[:, None])[:, 0]
        total += (torch.logsumexp(part, dim=1) - picked).sum()
    return {"loss": (total / m).reshape(1)}


def baseline(logits: torch.Tensor, targets: torch.Tensor, m: int, v: int) -> dict[str, torch.Tensor]:
    """Plain PyTorch as autocast runs it on bf16 logits (widened to fp32 first, unfused): the
    point a submission's speedup is measured from."""
    return {"loss": torch.nn.functional.cross_entropy(logits.float(), targets.long()).reshape(1)}
