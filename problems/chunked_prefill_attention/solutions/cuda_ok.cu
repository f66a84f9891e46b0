// Accepted: a block per (32 queries of one sequence's chunk, head): four threads per query, each
// holding a quarter of q and of the output's dimensions (d = part + 4 j) in registers. The keys
// the block needs, positions 0 .. prefix + its last query, are walked in tiles of 32: each tile's
// K and V rows are staged once in shared memory (from the cache through the block table, or from
// the chunk) and read by all 32 queries; the four partial dot products of a query are added with
// two shuffles, and the online softmax runs in fp32.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#define ROWS 32
#define KEYS 32

template <int MAX_D>
__global__ void __launch_bounds__(128) prefill_kernel(const __nv_bfloat16* q, const __nv_bfloat16* k,
                                                      const __nv_bfloat16* v, const __nv_bfloat16* k_cache,
                                                      const __nv_bfloat16* v_cache, const int* block_table,
                                                      const int* prefix_lens, __nv_bfloat16* out, int chunk_len,
                                                      int num_heads, int num_kv_heads, int head_dim, int block_size,
                                                      int max_blocks_per_seq, float scale) {
    constexpr int PER = MAX_D / 4;
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

extern "C" void solve(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                      const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache, const int* block_table,
                      const int* prefix_lens, __nv_bfloat16* out, int num_seqs, int chunk_len, int num_heads,
                      int num_kv_heads, int head_dim, int block_size, int max_blocks_per_seq) {
    dim3 grid((chunk_len + ROWS - 1) / ROWS, num_heads, num_seqs);
    float scale = 1.0f / sqrtf((float)head_dim);
    if (head_dim <= 128)
        prefill_kernel<128><<<grid, 128>>>(q, k, v, k_cache, v_cache, block_table, prefix_lens, out, chunk_len,
                                           num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq, scale);
    else
        prefill_kernel<256><<<grid, 128>>>(q, k, v, k_cache, v_cache, block_table, prefix_lens, out, chunk_len,
                                           num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq, scale);
}
