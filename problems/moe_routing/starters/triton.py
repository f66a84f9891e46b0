import torch
import triton
import triton.language as tl


@triton.jit
def route_kernel(logits_ptr, ids_ptr, weights_ptr, experts, TOP_K: tl.constexpr, E_PAD: tl.constexpr):
    # One program per token.
    token = tl.program_id(0)
    cols = tl.arange(0, E_PAD)
    x = tl.load(logits_ptr + token * experts + cols, mask=cols < experts, other=-float("inf"))
    # TODO: the softmax statistics of the row: its maximum m and s = sum(exp(x - m)).
    # TODO: TOP_K times: the largest remaining logit and, among equal ones, the lowest expert id
    # (tl.min of the ids where x equals the maximum); write the id to ids[token * TOP_K + j] and
    # exp(x_id - m) / s to weights[token * TOP_K + j]; then set x[id] to -inf for the next round.
    pass


@triton.jit
def group_kernel(ids_ptr, counts_ptr, offsets_ptr, perm_ptr, total, BLOCK: tl.constexpr):
    # One program per expert; total = tokens * top_k flat assignments (t * top_k + j).
    expert = tl.program_id(0)
    # TODO: walk ids in blocks of BLOCK: count the assignments to this expert and to every lower
    # expert id; store counts[expert] and offsets[expert] (the assignments to lower ids).
    # TODO: walk ids again, in order: the i-th assignment to this expert (i = 0, 1, ...) goes to
    # perm[offsets[expert] + i] = its flat index (tl.cumsum of the matches within a block gives i).
    pass


def solve(logits, topk_ids, topk_weights, expert_counts, expert_offsets, permutation, tokens, experts, top_k):  # fmt: skip
    route_kernel[(tokens,)](
        logits, topk_ids, topk_weights, experts, TOP_K=top_k, E_PAD=max(16, triton.next_power_of_2(experts))
    )
    group_kernel[(experts,)](topk_ids, expert_counts, expert_offsets, permutation, tokens * top_k, BLOCK=1024)
