"""Compile error: a colon missing after the for statement."""

import torch


def solve(probs, top_p, uniforms, token_ids, batch, vocab):
    for row in range(batch)
        order = torch.sort(probs[row], descending=True, stable=True).indices
        token_ids[row] = order[0]
