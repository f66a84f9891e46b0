import math

import cupy as cp

# CuPy has no bfloat16 dtype: q, k, v, the caches and out arrive as uint16 arrays holding the bf16
# bits (cuda_bf16.h's __nv_bfloat16 has the same layout); block_table and prefix_lens are int32.
prefill_kernel = cp.RawKernel(
    r"""
#include <cuda_bf16.h>

#define MAX_PER_LANE 8  // head_dim <= 256: lane l owns dimensions l, l + 32, ...

// One warp per (query token, head) row: blockDim.x = 128 (four rows a block), grid over the rows.
extern "C" __global__ void prefill_kernel(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                                          const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache, const int* block_table,
                                          const int* prefix_lens, __nv_bfloat16* out, int chunk_len, int num_heads,
                                          int num_kv_heads, int head_dim, int block_size, int max_blocks_per_seq,
                                          long long rows, float scale) {
    long long row = (long long)blockIdx.x * 4 + threadIdx.x / 32;  // token * num_heads + head
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    long long token = row / num_heads;
    int head = (int)(row % num_heads);
    int seq = (int)(token / chunk_len), i = (int)(token % chunk_len);
    int kv_head = head / (num_heads / num_kv_heads);
    int prefix = prefix_lens[seq];
    float qv[MAX_PER_LANE], acc[MAX_PER_LANE];
    for (int j = 0; j < MAX_PER_LANE; ++j) {
        int d = lane + 32 * j;
        qv[j] = d < head_dim ? __bfloat162float(q[row * head_dim + d]) : 0.0f;
        acc[j] = 0.0f;
    }
    float run_max = __int_as_float(0xff800000), run_sum = 0.0f;  // -inf
    // TODO: query i sits at position prefix + i and sees positions p = 0 .. prefix + i. For p <
    // prefix the key and value rows are in the cache: page = block_table[seq * max_blocks_per_seq
    // + p / block_size], slot = page * block_size + p % block_size, row (slot * num_kv_heads +
    // kv_head) * head_dim of k_cache and v_cache (64-bit). For p >= prefix they are the chunk's:
    // token t = seq * chunk_len + (p - prefix), row (t * num_kv_heads + kv_head) * head_dim of k
    // and v. Per key: the dot product q . k over the lanes' dimensions, summed with
    // __shfl_xor_sync; s = dot * scale; online softmax in fp32 (new_max = fmaxf(run_max, s),
    // alpha = expf(run_max - new_max), w = expf(s - new_max), run_sum = run_sum * alpha + w,
    // acc[j] = acc[j] * alpha + w * v[d]). Then out[row * head_dim + d] = acc[j] / run_sum as bf16.
}
""",
    "prefill_kernel",
)


def solve(q, k, v, k_cache, v_cache, block_table, prefix_lens, out, num_seqs, chunk_len, num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq):  # fmt: skip
    rows = num_seqs * chunk_len * num_heads
    args = (
        q, k, v, k_cache, v_cache, block_table, prefix_lens, out,
        cp.int32(chunk_len), cp.int32(num_heads), cp.int32(num_kv_heads), cp.int32(head_dim),
        cp.int32(block_size), cp.int32(max_blocks_per_seq), cp.int64(rows), cp.float32(1.0 / math.sqrt(head_dim)),
    )  # fmt: skip
    prefill_kernel(((rows + 3) // 4,), (128,), args)
