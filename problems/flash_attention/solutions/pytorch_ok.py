"""Accepted: the PyTorch language may call anything, torch's fused attention included (fp32 scores
and statistics inside, bf16 probabilities for P @ V on the GPU): written into out."""

import torch


def solve(q, k, v, out, batch, heads, seq, head_dim, mask_mode):  # fmt: skip
    out.copy_(torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=mask_mode == 2))
