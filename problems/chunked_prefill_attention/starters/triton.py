import math

import torch
import triton
import triton.language as tl


@triton.jit
def prefill_kernel(
    q_ptr, k_ptr, v_ptr, kc_ptr, vc_ptr, table_ptr, prefix_ptr, out_ptr,
    chunk_len, num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq, scale,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr,
):  # fmt: skip
    # One program per (sequence, block of BLOCK_M queries of its chunk, head).
    seq = tl.program_id(0)
    rows = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)  # query i of the chunk, at position prefix + i
    head = tl.program_id(2)
    kv_head = head // (num_heads // num_kv_heads)
    prefix = tl.load(prefix_ptr + seq)
    dims = tl.arange(0, BLOCK_D)
    row_ok = rows < chunk_len
    dim_ok = dims < head_dim
    tokens = (seq * chunk_len + rows).to(tl.int64)
    q_offsets = (tokens[:, None] * num_heads + head) * head_dim + dims[None, :]
    q = tl.load(q_ptr + q_offsets, mask=row_ok[:, None] & dim_ok[None, :], other=0.0)
    run_max = tl.full([BLOCK_M], -float("inf"), tl.float32)
    run_sum = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], tl.float32)
    # TODO: the cached prefix, BLOCK_N positions at a time from 0 to prefix: position p lives in
    # page block_table[seq, p // block_size] at offset p % block_size, so its key is the row
    # (page * block_size + p % block_size) * num_kv_heads + kv_head of k_cache (64-bit offsets),
    # and every query sees every prefix position (mask only p >= prefix). Then the chunk's own keys
    # 0 .. min(chunk_len, (block + 1) * BLOCK_M) - 1 from k and v (token seq * chunk_len + key):
    # query i sees key j only when j <= i. For each block of keys: scores = tl.dot(q, tl.trans(k))
    # * scale in fp32, -inf where hidden; online softmax: new_max = max(run_max, row max), alpha =
    # exp(run_max - new_max), p = exp(scores - new_max[:, None]), run_sum = run_sum * alpha +
    # sum(p), acc = acc * alpha[:, None] + tl.dot(p.to(tl.bfloat16), v), run_max = new_max.
    # TODO: store (acc / run_sum[:, None]).to(tl.bfloat16) at q_offsets, masked to valid rows and dims
    pass


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
    BLOCK_M, BLOCK_N = 32, 32
    grid = (num_seqs, triton.cdiv(chunk_len, BLOCK_M), num_heads)
    prefill_kernel[grid](
        q, k, v, k_cache, v_cache, block_table, prefix_lens, out,
        chunk_len, num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq, 1.0 / math.sqrt(head_dim),
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_D=max(16, triton.next_power_of_2(head_dim)),
    )  # fmt: skip
