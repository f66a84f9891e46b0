import torch

EPS = 1e-5


def solve(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    # Write the layer-normalized rows of x (scaled by weight, shifted by bias) into y; return nothing.
    raise NotImplementedError
