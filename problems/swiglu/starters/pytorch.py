import torch


def solve(gate: torch.Tensor, up: torch.Tensor, out: torch.Tensor, m: int, n: int) -> None:
    # Write silu(gate) * up into out (silu(x) = x * sigmoid(x)); return nothing.
    raise NotImplementedError
