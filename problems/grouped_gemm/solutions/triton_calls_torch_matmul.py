"""Rejected: torch.matmul per expert inside a Triton submission; the source scan refuses it."""

import torch
import triton


def solve(a, w, expert_offsets, c, tokens, experts, active_experts, n, k):  # fmt: skip
    bounds = expert_offsets.tolist()
    for e in range(experts):
        lo, hi = bounds[e], bounds[e + 1]
        if hi > lo:
            c[lo:hi] = torch.matmul(a[lo:hi], w[e].T)
