"""Rejected (inputs modified): "saves an allocation" by adding in place into the input `a`.

The values written to `c` are right; the judge must notice that `a` no longer holds the input
(and that a later timed call would start from different data).
"""

import torch


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, n: int) -> None:
    a.add_(b)
    c.copy_(a)
