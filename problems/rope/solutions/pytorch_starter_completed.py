"""Accepted: the PyTorch starter completed as its comment says: fp32 inverse frequencies and
angles, each pair of q and k rotated in fp32 and written to the outputs."""

import torch


def rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, out: torch.Tensor, layout: int) -> None:
    x = x.float()
    half = x.shape[-1] // 2
    a, b = (x[..., 0::2], x[..., 1::2]) if layout == 1 else (x[..., :half], x[..., half:])
    c, s = cos[:, None, :], sin[:, None, :]
    if layout == 1:
        out[..., 0::2] = a * c - b * s
        out[..., 1::2] = b * c + a * s
    else:
        out[..., :half] = a * c - b * s
        out[..., half:] = b * c + a * s


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
    i = torch.arange(head_dim // 2, dtype=torch.float32, device=q.device)
    inv_freq = float(theta) ** (-2.0 * i / head_dim)
    angle = positions.float()[:, None] * inv_freq[None, :]
    cos, sin = angle.cos(), angle.sin()
    rotate(q, cos, sin, q_out, layout)
    rotate(k, cos, sin, k_out, layout)
