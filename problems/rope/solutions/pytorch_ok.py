"""Accepted: plain PyTorch, with the inverse frequencies as 1 / theta^(2i/d) (the form most model
code uses) and the pairs gathered by an index map built once per layout."""

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
    steps = torch.arange(0, head_dim, 2, dtype=torch.float32, device=q.device)
    inv_freq = 1.0 / (float(theta) ** (steps / head_dim))
    angle = torch.outer(positions.float(), inv_freq)
    cos, sin = angle.cos()[:, None, :], angle.sin()[:, None, :]
    i = torch.arange(half, device=q.device)
    first, second = (2 * i, 2 * i + 1) if layout == 1 else (i, i + half)
    for x, out in ((q, q_out), (k, k_out)):
        xf = x.float()
        a, b = xf[..., first], xf[..., second]
        out[..., first] = (a * cos - b * sin).to(out.dtype)
        out[..., second] = (b * cos + a * sin).to(out.dtype)
