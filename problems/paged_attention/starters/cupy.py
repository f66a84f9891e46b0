import math

import cupy as cp

# CuPy has no bfloat16 dtype: q, k_cache, v_cache and out arrive as uint16 arrays holding the
# bf16 bits; block_table and seq_lens are int32.
paged_attention_kernel = cp.RawKernel(
    r"""
#include <cuda_bf16.h>
extern "C" __global__ void paged_attention_kernel(
        const __nv_bfloat16* q, const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache,
        const int* block_table, const int* seq_lens, __nv_bfloat16* out,
        int num_heads, int num_kv_heads, int head_dim, int block_size, int max_blocks_per_seq, float scale) {
    // TODO: one block per (sequence, head); online softmax over the sequence's tokens
}
""",
    "paged_attention_kernel",
)


def solve(q, k_cache, v_cache, block_table, seq_lens, out, num_seqs, num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq):  # fmt: skip
    scale = 1.0 / math.sqrt(head_dim)
    args = (q, k_cache, v_cache, block_table, seq_lens, out, cp.int32(num_heads), cp.int32(num_kv_heads),
            cp.int32(head_dim), cp.int32(block_size), cp.int32(max_blocks_per_seq), cp.float32(scale))  # fmt: skip
    paged_attention_kernel((num_seqs, num_heads), (128,), args)
