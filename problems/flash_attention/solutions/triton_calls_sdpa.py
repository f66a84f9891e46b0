"""Rejected: a Triton submission that hands the work to torch's fused attention
(scaled_dot_product_attention is forbidden in the source: a kernel is asked for)."""

import torch


def solve(q, k, v, out, batch, heads, seq, head_dim, mask_mode):  # fmt: skip
    out.copy_(torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=mask_mode == 2))
