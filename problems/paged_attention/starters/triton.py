import math

import torch
import triton
import triton.language as tl


@triton.jit
def paged_attention_kernel(
    q_ptr, k_ptr, v_ptr, table_ptr, lens_ptr, out_ptr,
    num_heads, num_kv_heads, head_dim, block_size, max_blocks, scale,
    D_PAD: tl.constexpr,
):  # fmt: skip
    # One program per (sequence, query head): simple, but reads K/V once per query head.
    seq = tl.program_id(0)
    head = tl.program_id(1)
    kv_head = head // (num_heads // num_kv_heads)
    d = tl.arange(0, D_PAD)
    d_ok = d < head_dim
    length = tl.load(lens_ptr + seq)
    q = tl.load(q_ptr + (seq * num_heads + head) * head_dim + d, mask=d_ok, other=0.0).to(tl.float32)
    # TODO: for every token t < length: page = block_table[seq, t // block_size],
    # row = (page * block_size + t % block_size) * num_kv_heads + kv_head; load K and V rows,
    # score = sum(q * k) * scale; keep a running max, a rescaled running sum and accumulator.
    # TODO: store acc / sum as bf16 into out[seq, head, :]
    pass


def solve(q, k_cache, v_cache, block_table, seq_lens, out, num_seqs, num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq):  # fmt: skip
    D_PAD = triton.next_power_of_2(head_dim)
    scale = 1.0 / math.sqrt(head_dim)
    paged_attention_kernel[(num_seqs, num_heads)](
        q, k_cache, v_cache, block_table, seq_lens, out,
        num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq, scale,
        D_PAD=D_PAD,
    )  # fmt: skip
