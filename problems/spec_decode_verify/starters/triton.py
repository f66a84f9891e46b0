import torch
import triton
import triton.language as tl


@triton.jit
def verify_kernel(
    ids_ptr, q_ptr, p_ptr, u_ptr, w_ptr, n_ptr, token_ptr, num_draft, vocab, BLOCK: tl.constexpr
):  # fmt: skip
    seq = tl.program_id(0).to(tl.int64)
    # TODO:
    # 1. For i in range(num_draft): x = draft token i, q = draft_probs[seq, i, x],
    #    p = target_probs[seq, i, x], u = accept_uniforms[seq, i]; the token is accepted iff
    #    u * q < p. n = the number of tokens accepted before the first rejection; store it.
    # 2. The next token's weights: d = max(0, p_n - q_n) over the vocabulary when n < num_draft
    #    (rows target_probs[seq, n] and draft_probs[seq, n]), d = p_n = target_probs[seq, num_draft]
    #    when every draft token was accepted. One pass over the tiles adds up Z = sum(d).
    # 3. A second pass: running = carry + tl.cumsum(d); the next token is the smallest index with
    #    running > sample_uniforms[seq] * Z. Store it.
    pass


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
    block = min(1024, triton.next_power_of_2(vocab))
    verify_kernel[(batch,)](
        draft_token_ids, draft_probs, target_probs, accept_uniforms, sample_uniforms, num_accepted, next_token,
        num_draft, vocab, BLOCK=block,
    )  # fmt: skip
