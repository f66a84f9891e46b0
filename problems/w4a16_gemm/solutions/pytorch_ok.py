"""Accepted: what a server without a fused kernel does: the weight dequantized to bf16 in memory
((q - zero) and the product with the scale rounded to bf16), then torch.nn.functional.linear."""

import torch

GROUP = 128


def solve(
    a: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor, zeros: torch.Tensor, c: torch.Tensor,
    m: int, n: int, k: int,
) -> None:  # fmt: skip
    q = (qweight[..., None] >> torch.arange(0, 32, 4, device=a.device, dtype=torch.int32)) & 0xF
    w = (q.reshape(n, k).to(torch.bfloat16) - zeros.repeat_interleave(GROUP, dim=1).to(torch.bfloat16)) * (
        scales.repeat_interleave(GROUP, dim=1)
    )
    c.copy_(torch.nn.functional.linear(a, w))
