// Key and value in one launch (blockIdx.y picks which); one warp per (token, head) row; each lane
// keeps its elements in registers between the absmax and the quantization (head_dim <= 256).
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#define MAX_PER_LANE 8

__global__ void append_kernel(const __nv_bfloat16* key, const __nv_bfloat16* value, const int* slot_mapping,
                              int8_t* k_cache, int8_t* v_cache, float* k_scale, float* v_scale, long long rows,
                              int num_kv_heads, int head_dim) {
    long long row = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    int slot = slot_mapping[row / num_kv_heads];
    if (slot < 0) return;
    bool is_v = blockIdx.y == 1;
    const __nv_bfloat16* src = (is_v ? value : key) + row * head_dim;
    float v[MAX_PER_LANE];
    float absmax = 0.0f;
#pragma unroll
    for (int j = 0; j < MAX_PER_LANE; ++j) {
        int i = lane + 32 * j;
        v[j] = i < head_dim ? __bfloat162float(src[i]) : 0.0f;
        absmax = fmaxf(absmax, fabsf(v[j]));
    }
    for (int d = 16; d > 0; d /= 2) absmax = fmaxf(absmax, __shfl_xor_sync(0xffffffffu, absmax, d));
    float s = absmax / 127.0f;
    long long out_row = (long long)slot * num_kv_heads + row % num_kv_heads;
    int8_t* dst = (is_v ? v_cache : k_cache) + out_row * head_dim;
#pragma unroll
    for (int j = 0; j < MAX_PER_LANE; ++j) {
        int i = lane + 32 * j;
        if (i < head_dim) dst[i] = absmax > 0.0f ? (int8_t)max(-127, min(127, __float2int_rn(v[j] / s))) : 0;
    }
    if (lane == 0) (is_v ? v_scale : k_scale)[out_row] = s;
}

// Rows wider than 256: the same warp per row, reading the row twice (the second read hits cache).
__global__ void append_wide_kernel(const __nv_bfloat16* key, const __nv_bfloat16* value, const int* slot_mapping,
                                   int8_t* k_cache, int8_t* v_cache, float* k_scale, float* v_scale, long long rows,
                                   int num_kv_heads, int head_dim) {
    long long row = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    int slot = slot_mapping[row / num_kv_heads];
    if (slot < 0) return;
    bool is_v = blockIdx.y == 1;
    const __nv_bfloat16* src = (is_v ? value : key) + row * head_dim;
    float absmax = 0.0f;
    for (int i = lane; i < head_dim; i += 32) absmax = fmaxf(absmax, fabsf(__bfloat162float(src[i])));
    for (int d = 16; d > 0; d /= 2) absmax = fmaxf(absmax, __shfl_xor_sync(0xffffffffu, absmax, d));
    float s = absmax / 127.0f;
    long long out_row = (long long)slot * num_kv_heads + row % num_kv_heads;
    int8_t* dst = (is_v ? v_cache : k_cache) + out_row * head_dim;
    for (int i = lane; i < head_dim; i += 32)
        dst[i] = absmax > 0.0f ? (int8_t)max(-127, min(127, __float2int_rn(__bfloat162float(src[i]) / s))) : 0;
    if (lane == 0) (is_v ? v_scale : k_scale)[out_row] = s;
}

extern "C" void solve(const __nv_bfloat16* key, const __nv_bfloat16* value, const int* slot_mapping, int8_t* k_cache,
                      int8_t* v_cache, float* k_scale, float* v_scale, int num_blocks, int block_size, int num_kv_heads,
                      int head_dim, int padding) {
    long long rows = ((long long)num_blocks * block_size + padding) * num_kv_heads;
    dim3 grid((unsigned)((rows + 7) / 8), 2);
    if (head_dim <= 32 * MAX_PER_LANE)
        append_kernel<<<grid, 256>>>(key, value, slot_mapping, k_cache, v_cache, k_scale, v_scale, rows, num_kv_heads,
                                     head_dim);
    else
        append_wide_kernel<<<grid, 256>>>(key, value, slot_mapping, k_cache, v_cache, k_scale, v_scale, rows,
                                          num_kv_heads, head_dim);
}
