"""Wrong answer: the rotation's sign convention flipped, (a cos + b sin, b cos - a sin): every pair
turns by minus its angle (the transpose of the rotation matrix)."""

import torch


def solve(
    q: torch.Tensor,
    k: torch.Tensor,
    positions: torch.Tensor,
    q_out: torch.Tensor,
    k_out: torch.Tensor,
    num_tokens: int,
    num_heads: int,
    num_kv_heads: int,
    head_dim: int,
    layout: int,
    theta: int,
) -> None:
    half = head_dim // 2
    i = torch.arange(half, device=q.device)
    inv_freq = float(theta) ** (-2.0 * i.float() / head_dim)
    angle = positions.float()[:, None] * inv_freq[None, :]
    cos, sin = angle.cos()[:, None, :], angle.sin()[:, None, :]
    first, second = (2 * i, 2 * i + 1) if layout == 1 else (i, i + half)
    for x, out in ((q, q_out), (k, k_out)):
        a, b = x.float()[..., first], x.float()[..., second]
        out[..., first] = (a * cos + b * sin).to(out.dtype)
        out[..., second] = (b * cos - a * sin).to(out.dtype)
