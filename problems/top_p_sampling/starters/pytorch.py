import torch


def solve(
    probs: torch.Tensor,
    top_p: torch.Tensor,
    uniforms: torch.Tensor,
    token_ids: torch.Tensor,
    batch: int,
    vocab: int,
) -> None:
    # Per row: rank the tokens by descending probability, equal ones by ascending index
    # (torch.sort(..., descending=True, stable=True)); the nucleus is the shortest prefix of that
    # order whose cumulative sum is >= top_p. Mark its tokens in token order, take a cumulative
    # sum of their probabilities in token order, and write the first index whose sum is
    # > uniforms * S (S: the nucleus's mass) into token_ids as int32.
    raise NotImplementedError
