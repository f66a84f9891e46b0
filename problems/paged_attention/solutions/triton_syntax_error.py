"""Compile error: inconsistent indentation (a Python IndentationError)."""

import triton
import triton.language as tl


@triton.jit
def attention_kernel(q_ptr, out_ptr, head_dim, D_PAD: tl.constexpr):
    d = tl.arange(0, D_PAD)
      q = tl.load(q_ptr + d, mask=d < head_dim)
    tl.store(out_ptr + d, q, mask=d < head_dim)


def solve(q, k_cache, v_cache, block_table, seq_lens, out, num_seqs, num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq):  # fmt: skip
    attention_kernel[(1,)](q, out, head_dim, D_PAD=triton.next_power_of_2(head_dim))
