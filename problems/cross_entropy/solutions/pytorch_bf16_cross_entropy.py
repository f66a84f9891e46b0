"""Wrong answer: cross_entropy called on the bf16 logits as they are. PyTorch accumulates in fp32
inside, but returns its log-probabilities and the loss in the input's dtype: the loss comes back
rounded to bf16 (8 significant bits), far outside 1e-4 relative."""

import torch


def solve(logits: torch.Tensor, targets: torch.Tensor, loss: torch.Tensor, m: int, v: int) -> None:
    loss.copy_(torch.nn.functional.cross_entropy(logits, targets.long()).reshape(1))
