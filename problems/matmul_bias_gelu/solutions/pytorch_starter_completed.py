"""Accepted: the PyTorch starter completed the plain way: the product in fp32 (TF32 stays off,
as the judge requires), the bias, PyTorch's erf GELU, one rounding into c."""

import torch


def solve(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    z = torch.addmm(bias.float(), a.float(), b.float())
    c.copy_(torch.nn.functional.gelu(z))
