import torch


def solve(logits: torch.Tensor, targets: torch.Tensor, loss: torch.Tensor, m: int, v: int) -> None:
    # Write the mean over rows of logsumexp(logits[i]) - logits[i, targets[i]] into loss (one
    # float32), with fp32 (or wider) statistics. Return nothing.
    raise NotImplementedError
