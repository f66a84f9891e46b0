"""Trusted reference for rotary position embedding (RoPE) on q and k. Runs only in the trusted process.

Layouts (contiguous, row-major):
  q          bf16 [num_tokens, num_heads, head_dim]
  k          bf16 [num_tokens, num_kv_heads, head_dim]
  positions  int32 [num_tokens], each in [0, MAX_POSITION)
  q_out, k_out: q and k rotated, same shapes
Pair i (0 <= i < head_dim / 2) of every head of token t is rotated by the angle
positions[t] * theta ** (-2 i / head_dim). Which two elements form pair i is the layout:
  layout == 1 (interleaved pairs): elements 2 i and 2 i + 1;
  layout == 2 (half-split):        elements i and i + head_dim / 2.
A pair (a, b) becomes (a cos - b sin, b cos + a sin).
"""

from __future__ import annotations

import torch

_PARAM_SALT = 0x5A17_0015
MAX_POSITION = 32768  # positions are drawn from [0, 2^15): the angle's fp32 rounding is calibrated for them
INTERLEAVED, HALF_SPLIT = 1, 2


def _check(head_dim: int, layout: int) -> None:
    if head_dim % 2:
        raise ValueError("head_dim must be even (the rotation works on pairs)")
    if layout not in (INTERLEAVED, HALF_SPLIT):
        raise ValueError("layout is 1 (interleaved pairs) or 2 (half-split)")


def generate_inputs(
    seed: int,
    device: str = "cpu",
    *,
    num_tokens: int,
    num_heads: int,
    num_kv_heads: int,
    head_dim: int,
    layout: int,
    theta: int,
) -> dict[str, torch.Tensor]:
    """q and k = scale * N(0, 1) + offset in bf16 (their own scale and offset each); positions
    uniform over [0, MAX_POSITION), with 0 and MAX_POSITION - 1 among them when there are two or
    more tokens (the smallest and the largest angles of every case)."""
    _check(head_dim, layout)
    gen_params = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    scale = torch.empty(2, dtype=torch.float64).uniform_(0.5, 3.0, generator=gen_params).tolist()
    offset = torch.empty(2, dtype=torch.float64).uniform_(-0.5, 0.5, generator=gen_params).tolist()
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    q = torch.randn(num_tokens, num_heads, head_dim, generator=gen, device=device)
    q = q.mul_(scale[0]).add_(offset[0] * scale[0]).to(torch.bfloat16)
    k = torch.randn(num_tokens, num_kv_heads, head_dim, generator=gen, device=device)
    k = k.mul_(scale[1]).add_(offset[1] * scale[1]).to(torch.bfloat16)
    positions = torch.randint(0, MAX_POSITION, (num_tokens,), generator=gen, device=device, dtype=torch.int32)
    if num_tokens >= 2:
        where = torch.randperm(num_tokens, generator=gen, device=device)[:2]
        positions[where[0]] = 0
        positions[where[1]] = MAX_POSITION - 1
    return {"q": q, "k": k, "positions": positions}


def _rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: int) -> torch.Tensor:
    """x [tokens, heads, d]; cos and sin [tokens, d / 2] in x's dtype."""
    half = x.shape[-1] // 2
    if layout == INTERLEAVED:
        a, b = x[..., 0::2], x[..., 1::2]
    else:
        a, b = x[..., :half], x[..., half:]
    c, s = cos[:, None, :], sin[:, None, :]
    first, second = a * c - b * s, b * c + a * s
    out = torch.empty_like(x)
    if layout == INTERLEAVED:
        out[..., 0::2], out[..., 1::2] = first, second
    else:
        out[..., :half], out[..., half:] = first, second
    return out


def reference(
    q: torch.Tensor,
    k: torch.Tensor,
    positions: torch.Tensor,
    num_tokens: int,
    num_heads: int,
    num_kv_heads: int,
    head_dim: int,
    layout: int,
    theta: int,
) -> dict[str, torch.Tensor]:
    """The rotation in float64: inverse frequencies, angles, their cosines and sines all exact
    to double precision."""
    _check(head_dim, layout)
    pair = torch.arange(head_dim // 2, dtype=torch.float64, device=q.device)
    inv_freq = float(theta) ** (-2.0 * pair / head_dim)
    angle = positions.double()[:, None] * inv_freq[None, :]
    cos, sin = angle.cos(), angle.sin()
    return {"q_out": _rotate(q.double(), cos, sin, layout), "k_out": _rotate(k.double(), cos, sin, layout)}


def baseline(
    q: torch.Tensor,
    k: torch.Tensor,
    positions: torch.Tensor,
    num_tokens: int,
    num_heads: int,
    num_kv_heads: int,
    head_dim: int,
    layout: int,
    theta: int,
) -> dict[str, torch.Tensor]:
    """Plain PyTorch in fp32, rounded to bf16 (what a model without a fused kernel runs): the
    point a submission's speedup is measured from."""
    pair = torch.arange(0, head_dim, 2, dtype=torch.float32, device=q.device)
    inv_freq = 1.0 / (float(theta) ** (pair / head_dim))
    angle = positions.float()[:, None] * inv_freq[None, :]
    cos, sin = angle.cos(), angle.sin()
    return {
        "q_out": _rotate(q.float(), cos, sin, layout).to(torch.bfloat16),
        "k_out": _rotate(k.float(), cos, sin, layout).to(torch.bfloat16),
    }
