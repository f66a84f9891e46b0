"""Accepted: the PyTorch language may call the vendor GEMM: a linear layer's product on the bf16
tensors (fp32 accumulation inside, one rounding), written into c."""

import torch


def solve(a: torch.Tensor, w: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    c.copy_(torch.nn.functional.linear(a, w))
