"""Chunked-prefill attention over a paged KV cache: 128-row GQA tiles, pipelined unmasked loops.

A candidate for reference_kernels/chunked_prefill_attention/expert_triton.py, not yet measured on
a GPU: it passes the judge's CPU cases in Triton's interpreter and compiles for sm_90 without
spills; whether it is faster is for the next H200 run of bench/expert_kernels.py to say.

Design:
- A program takes 128 rows of one kv head: 128 / GROUP queries times the GROUP query heads that
  read that kv head (16 tokens x 8 heads on the gqa8 shapes). Each K and V tile it loads serves
  every head of the group, and the tile is twice the expert's 64 rows, so the 16k-prefix shape
  launches 128 tiles x 8 kv heads = 1024 programs that each read the prefix once (8 GiB from L2
  in all, against the expert's 2048 programs and 16 GiB).
- Four loops, each with one body: the prefix's full blocks (no mask, no bound, unmasked loads
  when head_dim is a power of two), the prefix's last partial block, the chunk's blocks wholly at
  or before the tile's first query (no mask), and the blocks that cross the diagonal. Because no
  loop body holds a branch around its tl.dot, Triton pipelines every loop: K and V arrive through
  cp.async into a 3-deep ring and the wgmma run asynchronously.
- The page size is a compile-time constant, so a position's page and slot are a shift and a mask
  (a multiply-high for sizes that are not powers of two); the table entry is fetched with the
  tile's other loads, a stage ahead.
- Scores stay fp32; the online softmax keeps fp32 running maximum and sum in the exp2 domain with
  log2(e) / sqrt(d) applied in the FFMA that subtracts the maximum; P is rounded to bf16 for P V,
  the output is divided by the sum once. Late query tiles, which see the most keys, launch first.
- head_dim 128: 128 x 128 tiles, 8 warps (two warp groups of 64 rows), 3 stages. head_dim 64: the
  expert's measured 128 x 64 tiles with 4 warps, now pipelined. head_dim 256: 64 x 64, 8 warps, 2
  stages (correctness only; no benchmark shape has it).

Why it should beat the expert on 1seq-chunk2048-prefix16k-gqa8 (compiled for sm_90 with
bench/compile_triton_sm90.py): the expert's loop bodies choose between a masked and an unmasked
tl.dot at run time, and its TTGIR shows what that costs: no async copies (K and V go global ->
registers -> shared memory each block, 48 KiB of shared memory, num_stages has no effect), wgmma
issued synchronously, and with 64 rows on 8 warps S and P @ V get different MMA layouts
(warpsPerCTA [8, 1] and [4, 2]) so P is converted between them every block. The expert compiles
to 142 registers, 49,152 B of shared memory and 80 wgmma in its PTX at head_dim 128 (234, 32,768
B and 64 at head_dim 64); this file to 255 registers, 229,376 B and 64 wgmma at head_dim 128 and
255, 65,536 B and 64 at head_dim 64, none spilled, with 16-byte cp.async.cg for K and V. At 128
rows one program fills an SM (1024 programs, 7.8 waves on 132 SMs, each of near equal length), so
the prefix is not split over programs. If 255 registers cost more than the larger tile gains,
128 x 64 tiles with 8 warps and 3 stages (240 registers, 128 KiB) are the next configuration to
time.
"""

import math

import torch
import triton
import triton.language as tl

LOG2E = 1.4426950408889634


@triton.jit
def _step(q, k, v, mult, run_max, run_sum, acc, hidden, MASKED: tl.constexpr):
    # One block of keys: fp32 scores, online softmax in the exp2 domain (mult = log2(e) / sqrt(d),
    # applied in the same FFMA that subtracts the running maximum), bf16 P for P @ V.
    s = tl.dot(q, tl.trans(k))
    if MASKED:
        s = tl.where(hidden, -float("inf"), s)
    new_max = tl.maximum(run_max, tl.max(s, axis=1) * mult)
    alpha = tl.exp2(run_max - new_max)
    p = tl.exp2(s * mult - new_max[:, None])
    run_sum = run_sum * alpha + tl.sum(p, axis=1)
    acc = acc * alpha[:, None] + tl.dot(p.to(tl.bfloat16), v)
    return new_max, run_sum, acc


@triton.jit
def _load_kv(k_base, v_base, offsets, mask, EVEN_D: tl.constexpr, MASKED: tl.constexpr):
    if MASKED or not EVEN_D:
        k = tl.load(k_base + offsets, mask=mask, other=0.0)
        v = tl.load(v_base + offsets, mask=mask, other=0.0)
    else:
        k = tl.load(k_base + offsets)
        v = tl.load(v_base + offsets)
    return k, v


@triton.jit
def chunked_prefill_kernel(
    q_ptr, k_ptr, v_ptr, kc_ptr, vc_ptr, table_ptr, prefix_ptr, out_ptr,
    chunk_len, max_blocks_per_seq, mult, row_tiles,
    NUM_HEADS: tl.constexpr, NUM_KV_HEADS: tl.constexpr, HEAD_DIM: tl.constexpr, PAGE: tl.constexpr,
    GROUP: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr,
):  # fmt: skip
    tile = row_tiles - 1 - tl.program_id(0)  # the tiles late in the chunk see the most keys: first
    kv_head = tl.program_id(1)
    seq = tl.program_id(2)
    EVEN_D: tl.constexpr = BLOCK_D == HEAD_DIM
    prefix = tl.load(prefix_ptr + seq)

    # Rows are (query, head of the group) pairs of one kv head: a K/V tile serves the whole group.
    r = tile * BLOCK_M + tl.arange(0, BLOCK_M)
    query = r // GROUP
    head = kv_head * GROUP + r % GROUP
    dims = tl.arange(0, BLOCK_D)
    row_ok = query < chunk_len
    dim_ok = dims < HEAD_DIM
    q_offsets = ((seq * chunk_len + query).to(tl.int64)[:, None] * NUM_HEADS + head[:, None]) * HEAD_DIM + dims[None, :]
    q_mask = row_ok[:, None] & dim_ok[None, :]
    q = tl.load(q_ptr + q_offsets, mask=q_mask, other=0.0)

    run_max = tl.full([BLOCK_M], -float("inf"), tl.float32)
    run_sum = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], tl.float32)
    offs_n = tl.arange(0, BLOCK_N)
    table = table_ptr + seq.to(tl.int64) * max_blocks_per_seq
    kv_dim_mask = dim_ok[None, :]
    ROW: tl.constexpr = NUM_KV_HEADS * HEAD_DIM  # elements between two positions of a page / chunk
    kc_base = kc_ptr + kv_head * HEAD_DIM
    vc_base = vc_ptr + kv_head * HEAD_DIM

    # The prefix's full blocks: no mask, no bound. PAGE is a constant, so a position's page and
    # slot are a shift or a multiply-high, not a division; the positions of a page read the same
    # table entry, and the pipeliner fetches it with the block's K and V.
    full_blocks = prefix // BLOCK_N
    for b in range(0, full_blocks):
        pos = b * BLOCK_N + offs_n
        page = tl.load(table + pos // PAGE)
        slot = page.to(tl.int64) * PAGE + pos % PAGE
        offsets = slot[:, None] * ROW + dims[None, :]
        k, v = _load_kv(kc_base, vc_base, offsets, kv_dim_mask, EVEN_D, False)
        run_max, run_sum, acc = _step(q, k, v, mult, run_max, run_sum, acc, None, False)

    # The prefix's last, partial block, bounded by the prefix length.
    if full_blocks * BLOCK_N < prefix:
        pos = full_blocks * BLOCK_N + offs_n
        pos_ok = pos < prefix
        page = tl.load(table + pos // PAGE, mask=pos_ok, other=0)
        slot = page.to(tl.int64) * PAGE + pos % PAGE
        offsets = slot[:, None] * ROW + dims[None, :]
        k, v = _load_kv(kc_base, vc_base, offsets, pos_ok[:, None] & kv_dim_mask, EVEN_D, True)
        run_max, run_sum, acc = _step(q, k, v, mult, run_max, run_sum, acc, (pos >= prefix)[None, :], True)

    # The chunk's own keys: blocks wholly at or before the tile's first query need no mask; only
    # the blocks crossing the diagonal (up to the tile's last query) are masked.
    first_query = (tile * BLOCK_M) // GROUP
    last_query = tl.minimum(chunk_len - 1, (tile * BLOCK_M + BLOCK_M - 1) // GROUP)
    chunk_k = k_ptr + (seq * chunk_len).to(tl.int64) * ROW + kv_head * HEAD_DIM
    chunk_v = v_ptr + (seq * chunk_len).to(tl.int64) * ROW + kv_head * HEAD_DIM
    unmasked = (first_query + 1) // BLOCK_N
    for b in range(0, unmasked):
        keys = b * BLOCK_N + offs_n
        offsets = keys.to(tl.int64)[:, None] * ROW + dims[None, :]
        k, v = _load_kv(chunk_k, chunk_v, offsets, kv_dim_mask, EVEN_D, False)
        run_max, run_sum, acc = _step(q, k, v, mult, run_max, run_sum, acc, None, False)
    for start in range(unmasked * BLOCK_N, last_query + 1, BLOCK_N):
        keys = start + offs_n
        offsets = keys.to(tl.int64)[:, None] * ROW + dims[None, :]
        k, v = _load_kv(chunk_k, chunk_v, offsets, (keys < chunk_len)[:, None] & kv_dim_mask, EVEN_D, True)
        run_max, run_sum, acc = _step(q, k, v, mult, run_max, run_sum, acc, keys[None, :] > query[:, None], True)

    out = acc / run_sum[:, None]
    tl.store(out_ptr + q_offsets, out.to(tl.bfloat16), mask=q_mask)


def solve(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    block_table: torch.Tensor,
    prefix_lens: torch.Tensor,
    out: torch.Tensor,
    num_seqs: int,
    chunk_len: int,
    num_heads: int,
    num_kv_heads: int,
    head_dim: int,
    block_size: int,
    max_blocks_per_seq: int,
) -> None:
    group = num_heads // num_kv_heads
    block_d = max(16, triton.next_power_of_2(head_dim))
    if block_d <= 64:
        block_m, block_n, warps, stages = 128, 64, 4, 3
    elif block_d <= 128:
        block_m, block_n, warps, stages = 128, 128, 8, 3
    else:
        block_m, block_n, warps, stages = 64, 64, 8, 2
    row_tiles = triton.cdiv(chunk_len * group, block_m)
    grid = (row_tiles, num_kv_heads, num_seqs)
    chunked_prefill_kernel[grid](
        q, k, v, k_cache, v_cache, block_table, prefix_lens, out,
        chunk_len, max_blocks_per_seq, LOG2E / math.sqrt(head_dim), row_tiles,
        NUM_HEADS=num_heads, NUM_KV_HEADS=num_kv_heads, HEAD_DIM=head_dim, PAGE=block_size,
        GROUP=group, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_D=block_d, num_warps=warps, num_stages=stages,
    )  # fmt: skip
