"""Rejected: torch._scaled_mm (the library's fp8 GEMM) in a Triton submission: forbidden in the
source (a kernel is asked for)."""

import torch


def solve(a, b, a_scale, b_scale, c, m, n, k):  # fmt: skip
    c.copy_(torch._scaled_mm(a, b.T, scale_a=a_scale[:, None], scale_b=b_scale[None, :], out_dtype=torch.bfloat16))
