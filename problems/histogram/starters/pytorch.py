import torch


def solve(data: torch.Tensor, counts: torch.Tensor, n: int, num_bins: int) -> None:
    # Write the count of every bin into counts (allocated by the judge, int32); return nothing.
    raise NotImplementedError
