"""Accepted: the PyTorch starter completed as its comment says: the words unpacked with shifts,
each group's zero and scale repeated over its 128 columns, w dequantized in fp32 and a @ w.T in
fp32, copied into c (rounded to bf16 once)."""

import torch

GROUP = 128


def solve(
    a: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor, zeros: torch.Tensor, c: torch.Tensor,
    m: int, n: int, k: int,
) -> None:  # fmt: skip
    shifts = 4 * torch.arange(8, device=a.device, dtype=torch.int32)
    q = ((qweight[..., None] >> shifts) & 0xF).reshape(n, k)
    z = zeros.repeat_interleave(GROUP, dim=1)
    s = scales.float().repeat_interleave(GROUP, dim=1)
    w = (q - z).float() * s
    c.copy_(a.float() @ w.T)
