"""Trusted reference for the attention forward pass (bf16 in and out, one head per KV head).

Runs only in the trusted process. Layouts (contiguous, row-major):
  q, k, v  bf16 [batch, heads, seq, head_dim]    head_dim is 64 or 128
  out      bf16 [batch, heads, seq, head_dim]
  out[b, h, i] = sum_j softmax_j(q[b, h, i] . k[b, h, j] / sqrt(head_dim)) v[b, h, j]
over every key j (mask_mode = 1) or the keys j <= i (mask_mode = 2, causal).
"""

from __future__ import annotations

import math

import torch

_PARAM_SALT = 0x5A17_000E
FULL, CAUSAL = 1, 2
_SCORES = 1 << 25  # float64 scores formed at a time (256 MiB): query rows are taken in blocks


def generate_inputs(
    seed: int, device: str = "cpu", *, batch: int, heads: int, seq: int, head_dim: int, mask_mode: int
) -> dict[str, torch.Tensor]:
    """q = sq N(0, 1) + u, k = sk N(0, 1) + ck u, v = sv N(0, 1) + small offset, in bf16.

    u is one N(0, 1) vector of head_dim entries per case, shared by q and k. Its part of q . k /
    sqrt(d) is a constant of the query row of magnitude 120 to 160 (the sign drawn): softmax
    ignores it, but exp(score) without subtracting the row's maximum overflows to inf (or
    underflows to 0 / 0) on every case. It also spreads the scores across keys only by about
    sk, so attention stays soft (many keys share the weight) and kernels are checked on real
    averages, not on one winning key.
    """
    if mask_mode not in (FULL, CAUSAL):
        raise ValueError("mask_mode is 1 (no mask) or 2 (causal)")
    if head_dim not in (64, 128):
        raise ValueError("head_dim is 64 or 128")
    gen_params = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    sq, sk, sv = torch.empty(3, dtype=torch.float64).uniform_(0.5, 1.5, generator=gen_params).tolist()
    ov = float(torch.empty(1, dtype=torch.float64).uniform_(-0.2, 0.2, generator=gen_params))
    shift = float(torch.empty(1, dtype=torch.float64).uniform_(120.0, 160.0, generator=gen_params))
    sign = 1.0 if bool(torch.randint(0, 2, (1,), generator=gen_params)) else -1.0
    u = torch.randn(head_dim, generator=gen_params, dtype=torch.float64)
    ck = sign * shift * math.sqrt(head_dim) / float(u @ u)  # u . (ck u) / sqrt(d) = +-shift
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    shape = (batch, heads, seq, head_dim)
    uq = u.to(device=device, dtype=torch.float32)
    q = torch.randn(*shape, generator=gen, device=device).mul_(sq).add_(uq)
    k = torch.randn(*shape, generator=gen, device=device).mul_(sk).add_(uq * ck)
    v = torch.randn(*shape, generator=gen, device=device).mul_(sv).add_(ov * sv)
    return {"q": q.to(torch.bfloat16), "k": k.to(torch.bfloat16), "v": v.to(torch.bfloat16)}


def reference(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, batch: int, heads: int, seq: int, head_dim: int, mask_mode: int
) -> dict[str, torch.Tensor]:
    """softmax(q k^T / sqrt(d) + mask) v in float64, a block of query rows at a time."""
    out = torch.empty(batch, heads, seq, head_dim, dtype=torch.float64, device=q.device)
    rows = max(1, min(seq, _SCORES // max(seq, 1)))
    scale = 1.0 / math.sqrt(head_dim)
    keys = torch.arange(seq, device=q.device)
    for b in range(batch):
        for h in range(heads):
            k64, v64 = k[b, h].double(), v[b, h].double()
            for r0 in range(0, seq, rows):
                r1 = min(seq, r0 + rows)
                scores = (q[b, h, r0:r1].double() @ k64.T) * scale
                if mask_mode == CAUSAL:
                    future = keys[None, :] > torch.arange(r0, r1, device=q.device)[:, None]
                    scores.masked_fill_(future, -math.inf)
                out[b, h, r0:r1] = torch.softmax(scores, dim=-1) @ v64
    return {"out": out}


def baseline(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, batch: int, heads: int, seq: int, head_dim: int, mask_mode: int
) -> dict[str, torch.Tensor]:
    """torch's fused attention on the bf16 tensors (flash or cuDNN kernels on the GPU host): the
    point a submission's speedup is measured from."""
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=mask_mode == CAUSAL)
    return {"out": out}
