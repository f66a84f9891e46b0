"""Wrong answer: the weights dequantized as q * scale, the zero point never subtracted (a
symmetric format's dequantization applied to an asymmetric one): every output carries
sum_p a[i, p] * zero * scale too much."""

import torch

GROUP = 128


def solve(
    a: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor, zeros: torch.Tensor, c: torch.Tensor,
    m: int, n: int, k: int,
) -> None:  # fmt: skip
    shifts = 4 * torch.arange(8, device=a.device, dtype=torch.int32)
    q = ((qweight[..., None] >> shifts) & 0xF).reshape(n, k)
    w = q.float() * scales.float().repeat_interleave(GROUP, dim=1)
    c.copy_(a.float() @ w.T)
