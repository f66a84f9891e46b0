"""A RawKernel doing key and value in one launch: one warp per (token, head) row, the row kept in
registers between the absmax and the quantization (head_dim <= 256, else a second read)."""

import cupy as cp

append_kernel = cp.RawKernel(
    r"""
__device__ __forceinline__ float bf16_at(const unsigned short* p, int i) {
    return __uint_as_float((unsigned)p[i] << 16);
}

extern "C" __global__ void append_kernel(const unsigned short* key, const unsigned short* value,
                                         const int* slot_mapping, signed char* k_cache, signed char* v_cache,
                                         float* k_scale, float* v_scale, long long rows, int num_kv_heads,
                                         int head_dim) {
    long long row = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    int slot = slot_mapping[row / num_kv_heads];
    if (slot < 0) return;
    bool is_v = blockIdx.y == 1;
    const unsigned short* src = (is_v ? value : key) + row * head_dim;
    float v[8];
    float absmax = 0.0f;
    for (int j = 0; j < 8; ++j) {
        int i = lane + 32 * j;
        v[j] = i < head_dim ? bf16_at(src, i) : 0.0f;
        absmax = fmaxf(absmax, fabsf(v[j]));
    }
    for (int i = lane + 256; i < head_dim; i += 32) absmax = fmaxf(absmax, fabsf(bf16_at(src, i)));
    for (int d = 16; d > 0; d /= 2) absmax = fmaxf(absmax, __shfl_xor_sync(0xffffffffu, absmax, d));
    float s = absmax / 127.0f;
    long long out_row = (long long)slot * num_kv_heads + row % num_kv_heads;
    signed char* dst = (is_v ? v_cache : k_cache) + out_row * head_dim;
    for (int i = lane; i < head_dim; i += 32) {
        float x = i < 256 ? v[i / 32] : bf16_at(src, i);
        dst[i] = absmax > 0.0f ? (signed char)max(-127, min(127, __float2int_rn(x / s))) : 0;
    }
    if (lane == 0) (is_v ? v_scale : k_scale)[out_row] = s;
}
""",
    "append_kernel",
)


def solve(key, value, slot_mapping, k_cache, v_cache, k_scale, v_scale, num_blocks, block_size, num_kv_heads, head_dim, padding):  # fmt: skip
    rows = (num_blocks * block_size + padding) * num_kv_heads
    append_kernel(
        ((rows + 7) // 8, 2),
        (256,),
        (
            key,
            value,
            slot_mapping,
            k_cache,
            v_cache,
            k_scale,
            v_scale,
            cp.int64(rows),
            cp.int32(num_kv_heads),
            cp.int32(head_dim),
        ),  # fmt: skip
    )
