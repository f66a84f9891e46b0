#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

// One warp per (token, head) row: blockDim.x = 128 (four rows a block), grid over the rows.
__global__ void quantize_kernel(const __nv_bfloat16* x, const int* slot_mapping, int8_t* cache, float* scale,
                                int tokens, int num_kv_heads, int head_dim) {
    long long row = (long long)blockIdx.x * 4 + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= (long long)tokens * num_kv_heads) return;
    long long t = row / num_kv_heads;
    int h = (int)(row % num_kv_heads);
    int slot = slot_mapping[t];
    if (slot < 0) return;  // the whole warp leaves together
    const __nv_bfloat16* src = x + row * head_dim;
    float absmax = 0.0f;
    for (int i = lane; i < head_dim; i += 32) absmax = fmaxf(absmax, fabsf(__bfloat162float(src[i])));
    for (int d = 16; d > 0; d /= 2) absmax = fmaxf(absmax, __shfl_xor_sync(0xffffffffu, absmax, d));
    float s = absmax / 127.0f;
    int8_t* dst = cache + ((long long)slot * num_kv_heads + h) * head_dim;
    for (int i = lane; i < head_dim; i += 32) {
        int q = absmax > 0.0f ? __float2int_rn(__bfloat162float(src[i]) / s) : 0;
        dst[i] = (int8_t)max(-127, min(127, q));
    }
    if (lane == 0) scale[(long long)slot * num_kv_heads + h] = s;
}

// All pointers are device pointers. Launch on the default stream; do not synchronize.
extern "C" void solve(const __nv_bfloat16* key, const __nv_bfloat16* value, const int* slot_mapping, int8_t* k_cache,
                      int8_t* v_cache, float* k_scale, float* v_scale, int num_blocks, int block_size, int num_kv_heads,
                      int head_dim, int padding) {
    int tokens = num_blocks * block_size + padding;
    long long rows = (long long)tokens * num_kv_heads;
    int blocks = (int)((rows + 3) / 4);
    quantize_kernel<<<blocks, 128>>>(key, slot_mapping, k_cache, k_scale, tokens, num_kv_heads, head_dim);
    quantize_kernel<<<blocks, 128>>>(value, slot_mapping, v_cache, v_scale, tokens, num_kv_heads, head_dim);
}
