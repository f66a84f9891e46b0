import torch
import triton
import triton.language as tl


@triton.jit
def verify_kernel(
    ids_ptr, q_ptr, p_ptr, u_ptr, w_ptr, n_ptr, token_ptr, num_draft, vocab, BLOCK: tl.constexpr
):  # fmt: skip
    seq = tl.program_id(0).to(tl.int64)
    # The tests in order: n counts the accepted tokens before the first rejection.
    n = 0
    still = 1
    for i in range(num_draft):
        x = tl.load(ids_ptr + seq * num_draft + i).to(tl.int64)
        q = tl.load(q_ptr + (seq * num_draft + i) * vocab + x)
        p = tl.load(p_ptr + (seq * (num_draft + 1) + i) * vocab + x)
        u = tl.load(u_ptr + seq * num_draft + i)
        still = still * (u * q < p).to(tl.int32)
        n += still
    tl.store(n_ptr + seq, n)
    # The weights of the next token: max(0, p_n - q_n) after a rejection, p_K after none.
    rejected = n < num_draft
    p_row = p_ptr + (seq * (num_draft + 1) + n) * vocab
    q_row = q_ptr + (seq * num_draft + tl.minimum(n, num_draft - 1)) * vocab
    total = 0.0
    for start in range(0, vocab, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        pv = tl.load(p_row + cols, mask=cols < vocab, other=0.0)
        qv = tl.load(q_row + cols, mask=(cols < vocab) & rejected, other=0.0)
        total += tl.sum(tl.maximum(pv - qv, 0.0), axis=0)
    # The draw: the first token whose running weight is > w * Z.
    target = tl.load(w_ptr + seq) * total
    carry = 0.0
    token = vocab
    for start in range(0, vocab, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        pv = tl.load(p_row + cols, mask=cols < vocab, other=0.0)
        qv = tl.load(q_row + cols, mask=(cols < vocab) & rejected, other=0.0)
        d = tl.maximum(pv - qv, 0.0)
        running = carry + tl.cumsum(d, axis=0)
        token = tl.minimum(token, tl.min(tl.where((d > 0) & (running > target), cols, vocab), axis=0))
        carry += tl.sum(d, axis=0)
    tl.store(token_ptr + seq, token)


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
