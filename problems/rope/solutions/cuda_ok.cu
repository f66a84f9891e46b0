// Accepted: one block per token; the token's cosines and sines go to shared memory once (one
// sincosf per pair), then the block rotates every head of q and k with them.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

constexpr int MAX_HALF = 128;  // head_dim <= 256

__global__ void rope_shared_angles(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
                                   const int* __restrict__ positions, __nv_bfloat16* __restrict__ q_out,
                                   __nv_bfloat16* __restrict__ k_out, int num_heads, int num_kv_heads, int head_dim,
                                   int layout, float log2_theta) {
    __shared__ float cos_s[MAX_HALF], sin_s[MAX_HALF];
    const int t = blockIdx.x, half = head_dim / 2;
    const float p = (float)positions[t];
    for (int i = threadIdx.x; i < half; i += blockDim.x) {
        float inv_freq = exp2f(-(2.0f * i / head_dim) * log2_theta);
        sincosf(p * inv_freq, &sin_s[i], &cos_s[i]);
    }
    __syncthreads();
    const int items = (num_heads + num_kv_heads) * half;
    for (int item = threadIdx.x; item < items; item += blockDim.x) {
        const int h = item / half, i = item % half;
        const bool is_q = h < num_heads;
        const long long row = is_q ? ((long long)t * num_heads + h) * head_dim
                                   : ((long long)t * num_kv_heads + (h - num_heads)) * head_dim;
        const __nv_bfloat16* src = is_q ? q : k;
        __nv_bfloat16* dst = is_q ? q_out : k_out;
        const long long first = row + (layout == 1 ? 2 * i : i);
        const long long second = row + (layout == 1 ? 2 * i + 1 : i + half);
        const float a = __bfloat162float(src[first]), b = __bfloat162float(src[second]);
        dst[first] = __float2bfloat16(a * cos_s[i] - b * sin_s[i]);
        dst[second] = __float2bfloat16(b * cos_s[i] + a * sin_s[i]);
    }
}

extern "C" void solve(const __nv_bfloat16* q, const __nv_bfloat16* k, const int* positions, __nv_bfloat16* q_out,
                      __nv_bfloat16* k_out, int num_tokens, int num_heads, int num_kv_heads, int head_dim, int layout,
                      int theta) {
    rope_shared_angles<<<num_tokens, 256>>>(q, k, positions, q_out, k_out, num_heads, num_kv_heads, head_dim, layout,
                                            log2f((float)theta));
}
