"""Expert Triton solution for MoE routing (obeys the submission contract).

A stable counting sort by expert in four small launches, every pass reading its data once:

1. _route_and_count: one program per chunk of 16 tokens. The chunk's logits are one tile; each of
   the top_k rounds takes every row's maximum and the lowest id holding it, writes id and weight,
   and drops that entry. The chunk's picks are counted per expert: its row of a [chunks, experts]
   table.
2. _scan_chunks: per block of experts, the exclusive prefix sum of each expert's column of counts
   over the chunks (the chunk's base inside the expert's group), and the column totals.
3. _offsets: the exclusive prefix sum of the totals over the experts (one program).
4. _scatter: one program per chunk ranks each of its (at most 128) flat assignments among the
   chunk's earlier ones to the same expert (all pairs compared at once) and writes it to
   offsets[e] + base[chunk, e] + rank. Stable by construction: chunks in order, and inside a
   chunk by flat position.
"""

import torch
import triton
import triton.language as tl

CHUNK_TOKENS = 16
SCAN_EXPERTS = 32
SCAN_CHUNKS = 64


@triton.jit
def _route_and_count(
    logits_ptr, ids_ptr, weights_ptr, count_ptr, tokens, experts,
    TOP_K: tl.constexpr, E_PAD: tl.constexpr, CHUNK: tl.constexpr,
):  # fmt: skip
    chunk = tl.program_id(0)
    rows = chunk * CHUNK + tl.arange(0, CHUNK)
    cols = tl.arange(0, E_PAD)
    row_ok = rows < tokens
    x = tl.load(
        logits_ptr + rows.to(tl.int64)[:, None] * experts + cols[None, :],
        mask=row_ok[:, None] & (cols[None, :] < experts),
        other=-float("inf"),
        eviction_policy="evict_first",
    )
    m = tl.where(row_ok, tl.max(x, axis=1), 0.0)
    inv = 1.0 / tl.where(row_ok, tl.sum(tl.exp(x - m[:, None]), axis=1), 1.0)  # rows past the end: finite
    counts = tl.zeros([E_PAD], tl.int32)
    for j in tl.static_range(TOP_K):
        best = tl.max(x, axis=1)
        best_id = tl.min(tl.where(x == best[:, None], cols[None, :], E_PAD), axis=1)
        tl.store(ids_ptr + rows * TOP_K + j, best_id, mask=row_ok)
        tl.store(weights_ptr + rows * TOP_K + j, tl.exp(best - m) * inv, mask=row_ok)
        picked = (cols[None, :] == best_id[:, None]) & row_ok[:, None]
        counts += tl.sum(picked.to(tl.int32), axis=0)
        x = tl.where(cols[None, :] == best_id[:, None], -float("inf"), x)
    tl.store(count_ptr + chunk * experts + cols, counts, mask=cols < experts)


@triton.jit
def _scan_chunks(count_ptr, base_ptr, totals_ptr, chunks, experts, BLOCK_E: tl.constexpr, BLOCK_C: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_E + tl.arange(0, BLOCK_E)
    col_ok = cols < experts
    carry = tl.zeros([BLOCK_E], tl.int32)
    for c0 in range(0, chunks, BLOCK_C):
        chunk = c0 + tl.arange(0, BLOCK_C)
        at = chunk[:, None] * experts + cols[None, :]
        ok = (chunk[:, None] < chunks) & col_ok[None, :]
        tile = tl.load(count_ptr + at, mask=ok, other=0)
        tl.store(base_ptr + at, carry[None, :] + tl.cumsum(tile, axis=0) - tile, mask=ok)
        carry += tl.sum(tile, axis=0)
    tl.store(totals_ptr + cols, carry, mask=col_ok)


@triton.jit
def _offsets(totals_ptr, offsets_ptr, experts, E_PAD: tl.constexpr):
    cols = tl.arange(0, E_PAD)
    counts = tl.load(totals_ptr + cols, mask=cols < experts, other=0)
    tl.store(offsets_ptr + cols, tl.cumsum(counts, axis=0) - counts, mask=cols < experts)


@triton.jit
def _scatter(
    ids_ptr, base_ptr, offsets_ptr, perm_ptr, total, experts,
    ENTRIES: tl.constexpr, SLOTS: tl.constexpr,
):  # fmt: skip
    chunk = tl.program_id(0)
    first = chunk * ENTRIES  # ENTRIES = CHUNK_TOKENS * top_k flat assignments per chunk
    slot = tl.arange(0, SLOTS)  # SLOTS: ENTRIES rounded up to a power of 2
    ok = (slot < ENTRIES) & (first + slot < total)
    e = tl.load(ids_ptr + first + slot, mask=ok, other=-1)
    # rank = earlier assignments of the chunk to the same expert (all pairs: SLOTS <= 128)
    earlier = (e[None, :] == e[:, None]) & (slot[None, :] < slot[:, None])
    rank = tl.sum(earlier.to(tl.int32), axis=1)
    base = tl.load(base_ptr + chunk * experts + e, mask=ok, other=0)
    offset = tl.load(offsets_ptr + e, mask=ok, other=0)
    tl.store(perm_ptr + offset + base + rank, first + slot, mask=ok)


def solve(logits, topk_ids, topk_weights, expert_counts, expert_offsets, permutation, tokens, experts, top_k):  # fmt: skip
    e_pad = max(16, triton.next_power_of_2(experts))
    chunks = triton.cdiv(tokens, CHUNK_TOKENS)
    counts = torch.empty(chunks, experts, dtype=torch.int32, device=logits.device)
    bases = torch.empty_like(counts)
    _route_and_count[(chunks,)](
        logits, topk_ids, topk_weights, counts, tokens, experts,
        TOP_K=top_k, E_PAD=e_pad, CHUNK=CHUNK_TOKENS, num_warps=8 if e_pad >= 256 else 4,
    )  # fmt: skip
    _scan_chunks[(triton.cdiv(experts, SCAN_EXPERTS),)](
        counts, bases, expert_counts, chunks, experts, BLOCK_E=SCAN_EXPERTS, BLOCK_C=SCAN_CHUNKS
    )
    _offsets[(1,)](expert_counts, expert_offsets, experts, E_PAD=e_pad)
    entries = CHUNK_TOKENS * top_k
    _scatter[(chunks,)](
        topk_ids, bases, expert_offsets, permutation, tokens * top_k, experts,
        ENTRIES=entries, SLOTS=triton.next_power_of_2(entries), num_warps=8,
    )  # fmt: skip
