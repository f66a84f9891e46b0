// Accepted: one warp per (sequence, query head); each lane holds head_dim / 32 dimensions (up to
// 8), dot products reduce with shuffles, online softmax one token at a time.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <math.h>

constexpr int kMaxPerLane = 8;  // head_dim <= 256

__global__ void attention_warp(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k_cache,
                               const __nv_bfloat16* __restrict__ v_cache, const int* __restrict__ block_table,
                               const int* __restrict__ seq_lens, __nv_bfloat16* __restrict__ out, int num_seqs,
                               int num_heads, int num_kv_heads, int head_dim, int block_size, int max_blocks,
                               float scale) {
    int warp_id = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (warp_id >= num_seqs * num_heads) return;
    int seq = warp_id / num_heads, head = warp_id % num_heads;
    int kv_head = head / (num_heads / num_kv_heads);
    int length = seq_lens[seq];
    float qv[kMaxPerLane], acc[kMaxPerLane];
    for (int e = 0; e < kMaxPerLane; ++e) {
        int d = lane + 32 * e;
        qv[e] = d < head_dim ? __bfloat162float(q[((long long)seq * num_heads + head) * head_dim + d]) * scale : 0.0f;
        acc[e] = 0.0f;
    }
    float run_max = -INFINITY, run_sum = 0.0f;
    for (int t = 0; t < length; ++t) {
        int page = block_table[(long long)seq * max_blocks + t / block_size];
        long long row = ((long long)page * block_size + t % block_size) * num_kv_heads + kv_head;
        const __nv_bfloat16* kr = k_cache + row * head_dim;
        const __nv_bfloat16* vr = v_cache + row * head_dim;
        float s = 0.0f;
        for (int e = 0; e < kMaxPerLane; ++e) {
            int d = lane + 32 * e;
            if (d < head_dim) s += qv[e] * __bfloat162float(kr[d]);
        }
        for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
        float new_max = fmaxf(run_max, s);
        float alpha = expf(run_max - new_max);
        float p = expf(s - new_max);
        run_sum = run_sum * alpha + p;
        for (int e = 0; e < kMaxPerLane; ++e) {
            int d = lane + 32 * e;
            float v = d < head_dim ? __bfloat162float(vr[d]) : 0.0f;
            acc[e] = acc[e] * alpha + p * v;
        }
        run_max = new_max;
    }
    for (int e = 0; e < kMaxPerLane; ++e) {
        int d = lane + 32 * e;
        if (d < head_dim) out[((long long)seq * num_heads + head) * head_dim + d] = __float2bfloat16(acc[e] / run_sum);
    }
}

extern "C" void solve(const __nv_bfloat16* q, const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache,
                      const int* block_table, const int* seq_lens, __nv_bfloat16* out, int num_seqs, int num_heads,
                      int num_kv_heads, int head_dim, int block_size, int max_blocks_per_seq) {
    int warps = num_seqs * num_heads;
    int threads = 128;
    int blocks = (warps * 32 + threads - 1) / threads;
    attention_warp<<<blocks, threads>>>(q, k_cache, v_cache, block_table, seq_lens, out, num_seqs, num_heads,
                                        num_kv_heads, head_dim, block_size, max_blocks_per_seq,
                                        1.0f / sqrtf((float)head_dim));
}
