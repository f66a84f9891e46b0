"""Accepted: the same kernel as cuda_ok.cu as a RawKernel (head_dim up to 256): a block per (32
queries, head), four threads per query, K and V tiles of 32 positions staged in shared memory
from the cache through the block table or from the chunk, shared by the block's queries, an fp32
online softmax."""

import math

import cupy as cp

prefill_kernel = cp.RawKernel(
    r"""
#include <cuda_bf16.h>
#define ROWS 32
#define KEYS 32
#define MAX_D 256
#define PER (MAX_D / 4)
extern "C" __global__ void prefill_kernel(const __nv_bfloat16* q, const __nv_bfloat16* k,
                                          const __nv_bfloat16* v, const __nv_bfloat16* k_cache,
                                          const __nv_bfloat16* v_cache, const int* block_table,
                                          const int* prefix_lens, __nv_bfloat16* out, int chunk_len,
                                          int num_heads, int num_kv_heads, int head_dim, int block_size,
                                          int max_blocks_per_seq, float scale) {
    __shared__ __nv_bfloat16 Ks[KEYS][MAX_D];
    __shared__ __nv_bfloat16 Vs[KEYS][MAX_D];
    int q0 = blockIdx.x * ROWS, head = blockIdx.y, seq = blockIdx.z;
    int r = threadIdx.x / 4, part = threadIdx.x % 4;
    int i = q0 + r;
    bool row_ok = i < chunk_len;
    int kv_head = head / (num_heads / num_kv_heads);
    int prefix = prefix_lens[seq];
    long long q_row = (((long long)seq * chunk_len + i) * num_heads + head) * head_dim;
    float qv[PER], acc[PER];
#pragma unroll
    for (int j = 0; j < PER; ++j) {
        int d = part + 4 * j;
        qv[j] = row_ok && d < head_dim ? __bfloat162float(q[q_row + d]) : 0.0f;
        acc[j] = 0.0f;
    }
    float run_max = __int_as_float(0xff800000), run_sum = 0.0f;  // -inf
    int length = prefix + min(chunk_len, q0 + ROWS);  // positions the block's last query sees
    const __nv_bfloat16 zero = __float2bfloat16(0.0f);
    for (int k0 = 0; k0 < length; k0 += KEYS) {
        __syncthreads();  // the previous tile is consumed
        for (int e = threadIdx.x; e < KEYS * head_dim; e += blockDim.x) {
            int kk = e / head_dim, d = e % head_dim, p = k0 + kk;
            __nv_bfloat16 kval = zero, vval = zero;
            if (p < length) {
                long long base;
                if (p < prefix) {
                    long long page = block_table[(long long)seq * max_blocks_per_seq + p / block_size];
                    base = ((page * block_size + p % block_size) * num_kv_heads + kv_head) * head_dim;
                    kval = k_cache[base + d];
                    vval = v_cache[base + d];
                } else {
                    base = (((long long)seq * chunk_len + (p - prefix)) * num_kv_heads + kv_head) * head_dim;
                    kval = k[base + d];
                    vval = v[base + d];
                }
            }
            Ks[kk][d] = kval;
            Vs[kk][d] = vval;
        }
        __syncthreads();
        int n = min(KEYS, length - k0);
        for (int kk = 0; kk < n; ++kk) {
            float dot = 0.0f;
#pragma unroll
            for (int j = 0; j < PER; ++j) {
                int d = part + 4 * j;
                if (d < head_dim) dot += qv[j] * __bfloat162float(Ks[kk][d]);
            }
            dot += __shfl_xor_sync(0xffffffffu, dot, 1);
            dot += __shfl_xor_sync(0xffffffffu, dot, 2);
            if (row_ok && k0 + kk <= prefix + i) {
                float s = dot * scale;
                float new_max = fmaxf(run_max, s);
                float alpha = expf(run_max - new_max);
                float w = expf(s - new_max);
                run_sum = run_sum * alpha + w;
#pragma unroll
                for (int j = 0; j < PER; ++j) {
                    int d = part + 4 * j;
                    if (d < head_dim) acc[j] = acc[j] * alpha + w * __bfloat162float(Vs[kk][d]);
                }
                run_max = new_max;
            }
        }
    }
    if (!row_ok) return;
#pragma unroll
    for (int j = 0; j < PER; ++j) {
        int d = part + 4 * j;
        if (d < head_dim) out[q_row + d] = __float2bfloat16(acc[j] / run_sum);
    }
}
""",
    "prefill_kernel",
)


def solve(q, k, v, k_cache, v_cache, block_table, prefix_lens, out, num_seqs, chunk_len, num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq):  # fmt: skip
    grid = ((chunk_len + 31) // 32, num_heads, num_seqs)
    args = (
        q, k, v, k_cache, v_cache, block_table, prefix_lens, out,
        cp.int32(chunk_len), cp.int32(num_heads), cp.int32(num_kv_heads), cp.int32(head_dim),
        cp.int32(block_size), cp.int32(max_blocks_per_seq), cp.float32(1.0 / math.sqrt(head_dim)),
    )  # fmt: skip
    prefill_kernel(grid, (128,), args)
