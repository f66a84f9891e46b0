"""Rejected: the weight dequantized with repeat_interleave and the product left to
torch.nn.functional.linear in a Triton submission: forbidden in the source (a kernel is asked
for)."""

import torch

GROUP = 128


def solve(a, qweight, scales, zeros, c, m, n, k):  # fmt: skip
    q = (qweight[..., None] >> torch.arange(0, 32, 4, device=a.device, dtype=torch.int32)) & 0xF
    z = zeros.repeat_interleave(GROUP, dim=1)
    s = scales.repeat_interleave(GROUP, dim=1)
    w = ((q.reshape(n, k) - z).to(torch.bfloat16)) * s
    c.copy_(torch.nn.functional.linear(a, w))
