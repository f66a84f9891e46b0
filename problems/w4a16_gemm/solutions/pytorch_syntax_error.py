"""Compile error: a missing closing bracket (a Python syntax error)."""

import torch

GROUP = 128


def solve(a, qweight, scales, zeros, c, m, n, k):  # fmt: skip
    q = ((qweight[..., None] >> (4 * torch.arange(8, device=a.device, dtype=torch.int32)) & 0xF).reshape(n, k)
    c.copy_(a.float() @ ((q - zeros.repeat_interleave(GROUP, dim=1)).float() * scales.float().repeat_interleave(GROUP, dim=1)).T)
