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
    # Gather q and p at the draft tokens (draft_probs[b, i, x_i], target_probs[b, i, x_i]); a token
    # is accepted iff accept_uniforms * q < p, and n is the number accepted before the first
    # rejection (a cumulative product of the acceptances, summed). The next token's weights are
    # max(0, p_n - q_n) (rows n of target_probs and draft_probs) when n < num_draft, else
    # target_probs[b, num_draft]; it is the first index whose cumulative weight is
    # > sample_uniforms * (the weights' sum). Write n and the token (int32).
    raise NotImplementedError
