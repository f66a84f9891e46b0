"""Calibration variants of chunked_prefill_attention, for bench/calibrate_tolerances.py
(registered through bench/calibration_catalog.py): results a judge must accept ("other": the fp32
online softmax in other tilings, with bf16 probabilities for P @ V, or the prefix and the chunk
as two passes merged by their log-sum-exp) and results one precision step lower, or one masking
mistake away, that it must refuse ("lower"), computed on the CPU from the judge's own inputs.

A variant's result is the output out (fp32 holding bf16 values).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

Results = dict[str, Any]
Variants = Callable[[dict[str, torch.Tensor], dict[str, int]], tuple[Results, Results]]
Rounding = Callable[[torch.Tensor], torch.Tensor]
# (positions [L], queries' chunk indices [C], prefix, block_size) -> visible [C, L]
Visibility = Callable[[torch.Tensor, torch.Tensor, int, int], torch.Tensor]
LOG2E = 1.4426950408889634


def to_bf16(x: torch.Tensor) -> torch.Tensor:
    return x.to(torch.bfloat16).float()


def to_e4m3(x: torch.Tensor) -> torch.Tensor:
    return x.float().clamp(-448.0, 448.0).to(torch.float8_e4m3fn).float()


def ident(x: torch.Tensor) -> torch.Tensor:
    return x


def causal_at_prefix(pos: torch.Tensor, i: torch.Tensor, prefix: int, block_size: int) -> torch.Tensor:
    return pos[None, :] <= prefix + i[:, None]


def causal_from_zero(pos: torch.Tensor, i: torch.Tensor, prefix: int, block_size: int) -> torch.Tensor:
    """Query i taken to be at position i: prefix positions past i hidden, the chunk as it should."""
    chunk_index = torch.where(pos < prefix, pos, pos - prefix)
    return chunk_index[None, :] <= i[:, None]


def no_causal_mask(pos: torch.Tensor, i: torch.Tensor, prefix: int, block_size: int) -> torch.Tensor:
    return torch.ones(i.numel(), pos.numel(), dtype=torch.bool)


def whole_pages_only(pos: torch.Tensor, i: torch.Tensor, prefix: int, block_size: int) -> torch.Tensor:
    """The prefix's page count rounded down: a partly filled last page is never read."""
    read = (pos < (prefix // block_size) * block_size) | (pos >= prefix)
    return read[None, :] & causal_at_prefix(pos, i, prefix, block_size)


def _sequences(
    inp: dict[str, torch.Tensor], sizes: dict[str, int]
) -> list[tuple[int, slice, torch.Tensor, torch.Tensor]]:
    """Per sequence: its prefix, its rows, and its keys and values in position order, [L, kvh, d]."""
    k_cache, v_cache = inp["k_cache"].cpu().float(), inp["v_cache"].cpu().float()
    k, v = inp["k"].cpu().float(), inp["v"].cpu().float()
    table, block_size, chunk = inp["block_table"].cpu().long(), sizes["block_size"], sizes["chunk_len"]
    found = []
    for s, prefix in enumerate(inp["prefix_lens"].cpu().tolist()):
        rows = slice(s * chunk, (s + 1) * chunk)
        pages = table[s, : -(-prefix // block_size)]
        keys = torch.cat([k_cache[pages].flatten(0, 1)[:prefix], k[rows]])
        values = torch.cat([v_cache[pages].flatten(0, 1)[:prefix], v[rows]])
        found.append((prefix, rows, keys, values))
    return found


def _attention(
    inp: dict[str, torch.Tensor],
    sizes: dict[str, int],
    *,
    block: int = 64,
    visible: Visibility = causal_at_prefix,
    operands: Rounding = ident,
    scores: Rounding = ident,
    probs: Rounding = ident,
    split_at_prefix: bool = False,
) -> torch.Tensor:
    """The online softmax over blocks of `block` positions in fp32 (exp2 domain), `probs` applied
    to P before P @ V; with split_at_prefix the prefix and the chunk are two separate passes whose
    (max, sum, output) are merged at the end, as a cascade kernel does."""
    group = sizes["num_heads"] // sizes["num_kv_heads"]
    mult = LOG2E / math.sqrt(sizes["head_dim"])
    q = operands(inp["q"].cpu().float())
    out = torch.empty(q.shape)
    for prefix, rows, keys, values in _sequences(inp, sizes):
        kk = operands(keys).repeat_interleave(group, dim=1).transpose(0, 1)  # [H, L, d]
        vv = operands(values).repeat_interleave(group, dim=1).transpose(0, 1)
        qs = q[rows].transpose(0, 1)  # [H, C, d]
        length = kk.shape[1]
        pos = torch.arange(length)
        seen = visible(pos, torch.arange(qs.shape[1]), prefix, sizes["block_size"])
        parts = [(0, prefix), (prefix, length)] if split_at_prefix else [(0, length)]
        merged = []
        for lo, hi in parts:
            run_max = torch.full((*qs.shape[:2], 1), -math.inf)
            run_sum = torch.zeros_like(run_max)
            acc = torch.zeros(qs.shape)
            for c0 in range(lo, hi, block):
                c1 = min(hi, c0 + block)
                x = scores(qs @ kk[:, c0:c1].transpose(1, 2)) * mult
                x = x.masked_fill(~seen[None, :, c0:c1], -math.inf)
                new_max = torch.maximum(run_max, x.amax(-1, keepdim=True))
                safe = torch.where(torch.isinf(new_max), torch.zeros_like(new_max), new_max)
                alpha = torch.exp2(run_max - safe)
                p = torch.exp2(x - safe)
                run_sum = run_sum * alpha + p.sum(-1, keepdim=True)
                acc = acc * alpha + probs(p) @ vv[:, c0:c1]
                run_max = new_max
            merged.append((run_max, run_sum, acc))
        top = torch.stack([m for m, _, _ in merged]).amax(0)
        total = sum((s * torch.exp2(m - top)).nan_to_num(0.0) for m, s, _ in merged)
        combined = sum((a * torch.exp2(m - top)).nan_to_num(0.0) for m, _, a in merged)
        out[rows] = (combined / total).transpose(0, 1)
    return to_bf16(out)


def _chunked_prefill(inp: dict[str, torch.Tensor], sizes: dict[str, int]) -> tuple[Results, Results]:
    run = lambda **kw: _attention(inp, sizes, **kw)  # noqa: E731
    other = {
        "fp32 softmax over whole rows": run(block=1 << 30),
        "online fp32, fp32 P, blocks of 32": run(block=32),
        "online fp32, bf16 P for P @ V, blocks of 64": run(probs=to_bf16),
        "prefix and chunk as two passes merged by log-sum-exp, bf16 P": run(probs=to_bf16, split_at_prefix=True),
    }
    lower = {
        "scores rounded to bf16": run(scores=to_bf16, probs=to_bf16),
        "e4m3 P for P @ V": run(probs=to_e4m3),
        "e4m3 q, k, v and cache": run(operands=to_e4m3, probs=to_bf16),
        "causal mask from position 0, not the prefix's end": run(visible=causal_from_zero, probs=to_bf16),
        "no causal mask in the chunk": run(visible=no_causal_mask, probs=to_bf16),
        "a partly filled last page never read": run(visible=whole_pages_only, probs=to_bf16),
    }
    return other, lower


CP = dict(num_heads=32, num_kv_heads=8, head_dim=128, block_size=16)
PLANS: dict[str, tuple[Variants, tuple[dict[str, int], ...], tuple[dict[str, int], ...]]] = {
    "chunked_prefill_attention": (
        _chunked_prefill,
        (
            dict(num_seqs=3, chunk_len=7, num_heads=4, num_kv_heads=2, head_dim=32, block_size=5, max_blocks_per_seq=3),
            dict(
                num_seqs=5, chunk_len=17, num_heads=4, num_kv_heads=4, head_dim=64, block_size=7, max_blocks_per_seq=11
            ),
            dict(num_seqs=2, chunk_len=128, max_blocks_per_seq=33, **CP),
            dict(num_seqs=1, chunk_len=256, max_blocks_per_seq=64, **CP),
        ),
        (
            dict(num_seqs=2, chunk_len=1024, max_blocks_per_seq=256, **CP),
            dict(num_seqs=1, chunk_len=2048, max_blocks_per_seq=1024, **CP),
        ),
    ),
}
