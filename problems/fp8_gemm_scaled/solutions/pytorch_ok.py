"""Accepted: the library's scaled fp8 GEMM, torch._scaled_mm with row-wise scales (a_scale as a
column, b_scale as a row; b [n, k] row-major is the column-major [k, n] operand it asks for),
where the library takes the shape (n a multiple of 16); other shapes in fp32."""

import torch


def solve(
    a: torch.Tensor, b: torch.Tensor, a_scale: torch.Tensor, b_scale: torch.Tensor, c: torch.Tensor,
    m: int, n: int, k: int,
) -> None:  # fmt: skip
    if n % 16 == 0:
        c.copy_(torch._scaled_mm(a, b.T, scale_a=a_scale[:, None], scale_b=b_scale[None, :], out_dtype=torch.bfloat16))
    else:
        c.copy_((a.float() @ b.float().T) * a_scale[:, None] * b_scale[None, :])
