"""Compile error: a closing parenthesis missing in the angle's expression."""

import torch


def solve(q: torch.Tensor, k: torch.Tensor, positions: torch.Tensor, q_out: torch.Tensor, k_out: torch.Tensor,
          num_tokens: int, num_heads: int, num_kv_heads: int, head_dim: int, layout: int, theta: int) -> None:
    i = torch.arange(head_dim // 2, dtype=torch.float32, device=q.device)
    angle = positions.float()[:, None] * (float(theta) ** (-2.0 * i / head_dim)[None, :]
    q_out.copy_(q)
    k_out.copy_(k + angle.sum())
