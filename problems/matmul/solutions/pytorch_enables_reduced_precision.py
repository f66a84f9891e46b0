"""Rejected (changes global numerics): switches on TF32 and reduced-precision bf16 reductions
for the whole process "to make matmuls faster", and leaves them on. Everything the harness
computes with torch afterwards would silently run at lower precision."""

import torch


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = True
    torch.set_float32_matmul_precision("medium")
    torch.matmul(a, b, out=c)
