"""Wrong answer: when every draft token is accepted, the bonus token is drawn from the target's
row K - 1 (the last draft position) instead of row K."""

import torch
import triton
import triton.language as tl


@triton.jit
def verify_kernel(
    ids_ptr, q_ptr, p_ptr, u_ptr, w_ptr, n_ptr, token_ptr, num_draft, vocab, K_PAD: tl.constexpr, BLOCK: tl.constexpr
):  # fmt: skip
    seq = tl.program_id(0).to(tl.int64)
    pos = tl.arange(0, K_PAD)
    tested = pos < num_draft
    x = tl.load(ids_ptr + seq * num_draft + pos, mask=tested, other=0).to(tl.int64)
    q = tl.load(q_ptr + (seq * num_draft + pos) * vocab + x, mask=tested, other=1.0)
    p = tl.load(p_ptr + (seq * (num_draft + 1) + pos) * vocab + x, mask=tested, other=0.0)
    u = tl.load(u_ptr + seq * num_draft + pos, mask=tested, other=1.0)
    n = tl.min(tl.where(tested & (u * q >= p), pos, num_draft), axis=0)
    tl.store(n_ptr + seq, n)
    rejected = n < num_draft
    p_row = p_ptr + (seq * (num_draft + 1) + tl.minimum(n, num_draft - 1)) * vocab
    q_row = q_ptr + (seq * num_draft + tl.minimum(n, num_draft - 1)) * vocab
    total = 0.0
    for start in range(0, vocab, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        pv = tl.load(p_row + cols, mask=cols < vocab, other=0.0)
        qv = tl.load(q_row + cols, mask=(cols < vocab) & rejected, other=0.0)
        total += tl.sum(tl.maximum(pv - qv, 0.0), axis=0)
    target = tl.load(w_ptr + seq) * total
    carry = 0.0
    token = vocab
    start = 0
    while (start < vocab) & (token == vocab):
        cols = start + tl.arange(0, BLOCK)
        pv = tl.load(p_row + cols, mask=cols < vocab, other=0.0)
        qv = tl.load(q_row + cols, mask=(cols < vocab) & rejected, other=0.0)
        d = tl.maximum(pv - qv, 0.0)
        running = carry + tl.cumsum(d, axis=0)
        token = tl.min(tl.where((d > 0) & (running > target), cols, vocab), axis=0)
        carry += tl.sum(d, axis=0)
        start += BLOCK
    tl.store(token_ptr + seq, token)


def solve(draft_token_ids: torch.Tensor, draft_probs: torch.Tensor, target_probs: torch.Tensor, accept_uniforms: torch.Tensor, sample_uniforms: torch.Tensor, num_accepted: torch.Tensor, next_token: torch.Tensor, batch: int, num_draft: int, vocab: int) -> None:  # fmt: skip
    block = min(2048, triton.next_power_of_2(vocab))
    verify_kernel[(batch,)](
        draft_token_ids, draft_probs, target_probs, accept_uniforms, sample_uniforms, num_accepted, next_token,
        num_draft, vocab, K_PAD=triton.next_power_of_2(num_draft), BLOCK=block, num_warps=8,
    )  # fmt: skip
