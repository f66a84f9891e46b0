// Expert CUDA kernel for the int8 KV-cache append.
//
// Rows whose head_dim is a multiple of 8 (every real model): a group of LANES lanes per (token,
// head) row, each lane loading PER 16-byte chunks of 8 bf16 values and keeping them in registers;
// the group's absmax by shuffles inside the warp; each lane stores its 8 int8 values as one 8-byte
// word and the group's first lane the scale. LANES is head_dim / 8 rounded up to a power of two
// (16 for head_dim 128: two rows a warp), so no lane idles on common shapes. Key and value are
// blockIdx.y: one launch. Other head_dims take a plain warp-per-row kernel.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ int8_t quantize(float x, float s, bool zero) {
    return zero ? (int8_t)0 : (int8_t)max(-127, min(127, __float2int_rn(x / s)));
}

template <int LANES, int PER>
__global__ void __launch_bounds__(256) append_vec_kernel(const __nv_bfloat16* key, const __nv_bfloat16* value,
                                                         const int* slot_mapping, int8_t* k_cache, int8_t* v_cache,
                                                         float* k_scale, float* v_scale, long long rows,
                                                         int num_kv_heads, int head_dim) {
    const int groups = 256 / LANES;
    long long row = (long long)blockIdx.x * groups + threadIdx.x / LANES;
    int lane = threadIdx.x % LANES;
    int chunks = head_dim / 8;
    bool is_v = blockIdx.y == 1;
    int slot = row < rows ? slot_mapping[row / num_kv_heads] : -1;
    bool live = slot >= 0;  // the whole group agrees; every lane still joins the shuffles below
    const uint4* src = reinterpret_cast<const uint4*>((is_v ? value : key) + (live ? row : 0) * head_dim);
    float v[PER][8];
    float absmax = 0.0f;
#pragma unroll
    for (int p = 0; p < PER; ++p) {
        int c = lane + p * LANES;
        uint4 raw = make_uint4(0, 0, 0, 0);
        if (live && c < chunks) raw = __ldg(src + c);
        const __nv_bfloat162* pair = reinterpret_cast<const __nv_bfloat162*>(&raw);
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            float2 f = __bfloat1622float2(pair[k]);
            v[p][2 * k] = f.x;
            v[p][2 * k + 1] = f.y;
            absmax = fmaxf(absmax, fmaxf(fabsf(f.x), fabsf(f.y)));
        }
    }
#pragma unroll
    for (int d = LANES / 2; d > 0; d /= 2) absmax = fmaxf(absmax, __shfl_xor_sync(0xffffffffu, absmax, d));
    if (!live) return;
    float s = absmax / 127.0f;
    bool zero = absmax == 0.0f;
    long long out_row = (long long)slot * num_kv_heads + row % num_kv_heads;
    uint2* dst = reinterpret_cast<uint2*>((is_v ? v_cache : k_cache) + out_row * head_dim);
#pragma unroll
    for (int p = 0; p < PER; ++p) {
        int c = lane + p * LANES;
        if (c >= chunks) continue;
        uint32_t w[2] = {0, 0};
#pragma unroll
        for (int k = 0; k < 8; ++k) w[k / 4] |= (uint32_t)(uint8_t)quantize(v[p][k], s, zero) << (8 * (k % 4));
        dst[c] = make_uint2(w[0], w[1]);
    }
    if (lane == 0) (is_v ? v_scale : k_scale)[out_row] = s;
}

__global__ void append_scalar_kernel(const __nv_bfloat16* key, const __nv_bfloat16* value, const int* slot_mapping,
                                     int8_t* k_cache, int8_t* v_cache, float* k_scale, float* v_scale,
                                     long long rows, int num_kv_heads, int head_dim) {
    long long row = (long long)blockIdx.x * 8 + threadIdx.x / 32;
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
    for (int i = lane; i < head_dim; i += 32) dst[i] = quantize(__bfloat162float(src[i]), s, absmax == 0.0f);
    if (lane == 0) (is_v ? v_scale : k_scale)[out_row] = s;
}

template <int LANES, int PER>
static void launch_vec(const __nv_bfloat16* key, const __nv_bfloat16* value, const int* slot_mapping,
                       int8_t* k_cache, int8_t* v_cache, float* k_scale, float* v_scale, long long rows,
                       int num_kv_heads, int head_dim) {
    const int groups = 256 / LANES;
    dim3 grid((unsigned)((rows + groups - 1) / groups), 2);
    append_vec_kernel<LANES, PER><<<grid, 256>>>(key, value, slot_mapping, k_cache, v_cache, k_scale, v_scale, rows,
                                                 num_kv_heads, head_dim);
}

extern "C" void solve(const __nv_bfloat16* key, const __nv_bfloat16* value, const int* slot_mapping, int8_t* k_cache,
                      int8_t* v_cache, float* k_scale, float* v_scale, int num_blocks, int block_size, int num_kv_heads,
                      int head_dim, int padding) {
    long long rows = ((long long)num_blocks * block_size + padding) * num_kv_heads;
    int chunks = head_dim / 8;
    if (head_dim % 8 == 0 && chunks <= 64) {
        if (chunks <= 1) launch_vec<1, 1>(key, value, slot_mapping, k_cache, v_cache, k_scale, v_scale, rows, num_kv_heads, head_dim);
        else if (chunks <= 2) launch_vec<2, 1>(key, value, slot_mapping, k_cache, v_cache, k_scale, v_scale, rows, num_kv_heads, head_dim);
        else if (chunks <= 4) launch_vec<4, 1>(key, value, slot_mapping, k_cache, v_cache, k_scale, v_scale, rows, num_kv_heads, head_dim);
        else if (chunks <= 8) launch_vec<8, 1>(key, value, slot_mapping, k_cache, v_cache, k_scale, v_scale, rows, num_kv_heads, head_dim);
        else if (chunks <= 16) launch_vec<16, 1>(key, value, slot_mapping, k_cache, v_cache, k_scale, v_scale, rows, num_kv_heads, head_dim);
        else if (chunks <= 32) launch_vec<32, 1>(key, value, slot_mapping, k_cache, v_cache, k_scale, v_scale, rows, num_kv_heads, head_dim);
        else launch_vec<32, 2>(key, value, slot_mapping, k_cache, v_cache, k_scale, v_scale, rows, num_kv_heads, head_dim);
        return;
    }
    dim3 grid((unsigned)((rows + 7) / 8), 2);
    append_scalar_kernel<<<grid, 256>>>(key, value, slot_mapping, k_cache, v_cache, k_scale, v_scale, rows,
                                        num_kv_heads, head_dim);
}
