"""Rejected: the rotation done by PyTorch's complex numbers (torch.view_as_complex and
torch.polar) in a Triton submission: forbidden in the source."""

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
    i = torch.arange(head_dim // 2, dtype=torch.float32, device=q.device)
    angle = positions.float()[:, None] * (float(theta) ** (-2.0 * i / head_dim))[None, :]
    turn = torch.polar(torch.ones_like(angle), angle)[:, None, :]
    for x, out in ((q, q_out), (k, k_out)):
        xf = x.float()
        if layout == 2:
            pairs = torch.stack((xf[..., : head_dim // 2], xf[..., head_dim // 2 :]), dim=-1)
        else:
            pairs = xf.reshape(*xf.shape[:-1], head_dim // 2, 2)
        z = torch.view_as_real(torch.view_as_complex(pairs.contiguous()) * turn)
        if layout == 2:
            z = torch.cat((z[..., 0], z[..., 1]), dim=-1)
        out.copy_(z.reshape(out.shape))
