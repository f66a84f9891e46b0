import torch


def solve(
    draft_token_ids: torch.Tensor,
    draft_probs: torch.Tensor,
    target_probs: torch.Tensor,
    accept_uniforms: torch.Tensor,
    sample_uniforms: torch.Tensor,
    num_accepted: torch.Tensor,
    next_token: torch.Tensor,
    batch: int,
    num_draft: int,
    vocab: int,
) -> None:
    ids = draft_token_ids.long().unsqueeze(2)
    q = draft_probs.gather(2, ids).squeeze(2)
    p = target_probs[:, :num_draft].gather(2, ids).squeeze(2)
    accepted = (accept_uniforms * q < p).int()
    n = torch.cumprod(accepted, dim=1).sum(dim=1)
    rows = torch.arange(batch, device=draft_probs.device)
    p_n = target_probs[rows, n]
    q_n = draft_probs[rows, n.clamp(max=num_draft - 1)]
    weights = torch.where((n < num_draft).unsqueeze(1), (p_n - q_n).clamp(min=0), p_n)
    running = torch.cumsum(weights, dim=1)
    hit = (weights > 0) & (running > sample_uniforms.unsqueeze(1) * running[:, -1:])
    num_accepted.copy_(n)
    next_token.copy_(hit.int().argmax(dim=1))
