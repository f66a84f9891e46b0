import torch


def solve(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    # Write GELU(a @ b + bias) into c (bf16, allocated by the judge): accumulate in fp32, the
    # erf form of GELU, one rounding to bf16 at the end. Return nothing.
    raise NotImplementedError
