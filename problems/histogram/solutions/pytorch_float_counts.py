"""Wrong: torch.histc counts in float32. Past 2^24 a float32 counter cannot hold every integer
(16,777,259 is not a float32): the one-hot-bin-large case cannot come out right."""

import torch


def solve(data: torch.Tensor, counts: torch.Tensor, n: int, num_bins: int) -> None:
    counts.copy_(torch.histc(data.float(), bins=num_bins, min=0, max=num_bins))
