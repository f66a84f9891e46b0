import torch


def solve(
    probs: torch.Tensor,
    top_p: torch.Tensor,
    uniforms: torch.Tensor,
    token_ids: torch.Tensor,
    batch: int,
    vocab: int,
) -> None:
    sorted_probs, order = torch.sort(probs, dim=1, descending=True, stable=True)
    csum = torch.cumsum(sorted_probs, dim=1)
    k = (csum < top_p[:, None]).sum(dim=1, keepdim=True) + 1
    in_prefix = torch.arange(vocab, device=probs.device)[None, :] < k
    members = torch.zeros_like(in_prefix).scatter_(1, order, in_prefix)
    kept = torch.where(members, probs, torch.zeros_like(probs))
    running = torch.cumsum(kept, dim=1)
    target = uniforms * running[:, -1]
    hit = members & (running > target[:, None])
    token_ids.copy_(hit.int().argmax(dim=1))
