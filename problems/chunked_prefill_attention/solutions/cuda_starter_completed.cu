#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <math.h>

#define MAX_PER_LANE 8  // head_dim <= 256: lane l owns dimensions l, l + 32, ...

// One warp per (query token, head) row: blockDim.x = 128 (four rows a block), grid over the rows.
__global__ void prefill_kernel(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
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
    // Query i sits at position prefix + i: it sees positions 0 .. prefix + i.
    for (int p = 0; p <= prefix + i; ++p) {
        const __nv_bfloat16 *kp, *vp;
        if (p < prefix) {
            long long page = block_table[(long long)seq * max_blocks_per_seq + p / block_size];
            long long slot = page * block_size + p % block_size;
            kp = k_cache + (slot * num_kv_heads + kv_head) * head_dim;
            vp = v_cache + (slot * num_kv_heads + kv_head) * head_dim;
        } else {
            long long t = (long long)seq * chunk_len + (p - prefix);
            kp = k + (t * num_kv_heads + kv_head) * head_dim;
            vp = v + (t * num_kv_heads + kv_head) * head_dim;
        }
        float dot = 0.0f;
        for (int j = 0; j < MAX_PER_LANE; ++j) {
            int d = lane + 32 * j;
            if (d < head_dim) dot += qv[j] * __bfloat162float(kp[d]);
        }
        for (int o = 16; o > 0; o /= 2) dot += __shfl_xor_sync(0xffffffffu, dot, o);
        float s = dot * scale;
        float new_max = fmaxf(run_max, s);
        float alpha = expf(run_max - new_max);  // 0 for the first key (run_max = -inf)
        float w = expf(s - new_max);
        run_sum = run_sum * alpha + w;
        for (int j = 0; j < MAX_PER_LANE; ++j) {
            int d = lane + 32 * j;
            if (d < head_dim) acc[j] = acc[j] * alpha + w * __bfloat162float(vp[d]);
        }
        run_max = new_max;
    }
    for (int j = 0; j < MAX_PER_LANE; ++j) {
        int d = lane + 32 * j;
        if (d < head_dim) out[row * head_dim + d] = __float2bfloat16(acc[j] / run_sum);
    }
}

// All pointers are device pointers. Launch on the default stream; do not synchronize.
extern "C" void solve(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                      const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache, const int* block_table,
                      const int* prefix_lens, __nv_bfloat16* out, int num_seqs, int chunk_len, int num_heads,
                      int num_kv_heads, int head_dim, int block_size, int max_blocks_per_seq) {
    long long rows = (long long)num_seqs * chunk_len * num_heads;
    unsigned blocks = (unsigned)((rows + 3) / 4);
    prefill_kernel<<<blocks, 128>>>(q, k, v, k_cache, v_cache, block_table, prefix_lens, out, chunk_len, num_heads,
                                    num_kv_heads, head_dim, block_size, max_blocks_per_seq, rows,
                                    1.0f / sqrtf((float)head_dim));
}
