"""Compile error: a statement cut off in the middle (a Python syntax error)."""

import triton
import triton.language as tl


def solve(logits, topk_ids, topk_weights, expert_counts, expert_offsets, permutation, tokens, experts, top_k):  # fmt: skip
    for token in range(tokens
        pass
