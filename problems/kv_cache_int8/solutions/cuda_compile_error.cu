// Compile error: a bf16 element divided by a float without converting it first: both the built-in
// "/" and cuda_bf16.h's operator/(__nv_bfloat16, __nv_bfloat16) match, so the call is ambiguous.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void quantize_kernel(const __nv_bfloat16* x, const int* slot_mapping, int8_t* cache, float* scale,
                                int num_kv_heads, int head_dim) {
    int t = blockIdx.x, h = threadIdx.x;
    int slot = slot_mapping[t];
    if (slot < 0 || h >= num_kv_heads) return;
    const __nv_bfloat16* src = x + ((long long)t * num_kv_heads + h) * head_dim;
    float absmax = 0.0f;
    for (int i = 0; i < head_dim; ++i) absmax = fmaxf(absmax, fabsf(__bfloat162float(src[i])));
    float s = absmax / 127.0f;
    for (int i = 0; i < head_dim; ++i)
        cache[((long long)slot * num_kv_heads + h) * head_dim + i] = __float2int_rn(src[i] / s);
    scale[(long long)slot * num_kv_heads + h] = s;
}

extern "C" void solve(const __nv_bfloat16* key, const __nv_bfloat16* value, const int* slot_mapping, int8_t* k_cache,
                      int8_t* v_cache, float* k_scale, float* v_scale, int num_blocks, int block_size, int num_kv_heads,
                      int head_dim, int padding) {
    int tokens = num_blocks * block_size + padding;
    quantize_kernel<<<tokens, 32>>>(key, slot_mapping, k_cache, k_scale, num_kv_heads, head_dim);
    quantize_kernel<<<tokens, 32>>>(value, slot_mapping, v_cache, v_scale, num_kv_heads, head_dim);
}
