"""Accepted: the PyTorch starter completed as its comment says: fp32 copies of a and b (exact),
their product in fp32, each row times a_scale and each column times b_scale, copied into c
(rounded to bf16 once)."""

import torch


def solve(
    a: torch.Tensor, b: torch.Tensor, a_scale: torch.Tensor, b_scale: torch.Tensor, c: torch.Tensor,
    m: int, n: int, k: int,
) -> None:  # fmt: skip
    c.copy_((a.float() @ b.float().T) * a_scale[:, None] * b_scale[None, :])
