import cupy as cp

# key and value arrive as uint16 arrays of bf16 bits; the caches are int8, the scales float32,
# slot_mapping int32. A bf16 pattern b is the float whose bits are b << 16.
quantize_kernel = cp.RawKernel(
    r"""
// One warp per (token, head) row: blockDim.x = 128 (four rows a block), grid over the rows.
extern "C" __global__ void quantize_kernel(const unsigned short* x, const int* slot_mapping, signed char* cache,
                                           float* scale, int tokens, int num_kv_heads, int head_dim) {
    long long row = (long long)blockIdx.x * 4 + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= (long long)tokens * num_kv_heads) return;
    long long t = row / num_kv_heads;
    int h = (int)(row % num_kv_heads);
    int slot = slot_mapping[t];
    if (slot < 0) return;
    const unsigned short* src = x + row * head_dim;
    float absmax = 0.0f;
    for (int i = lane; i < head_dim; i += 32) absmax = fmaxf(absmax, fabsf(__uint_as_float((unsigned)src[i] << 16)));
    for (int d = 16; d > 0; d /= 2) absmax = fmaxf(absmax, __shfl_xor_sync(0xffffffffu, absmax, d));
    float s = absmax / 127.0f;
    signed char* dst = cache + ((long long)slot * num_kv_heads + h) * head_dim;
    for (int i = lane; i < head_dim; i += 32) {
        int q = absmax > 0.0f ? __float2int_rn(__uint_as_float((unsigned)src[i] << 16) / s) : 0;
        dst[i] = (signed char)max(-127, min(127, q));
    }
    if (lane == 0) scale[(long long)slot * num_kv_heads + h] = s;
}
""",
    "quantize_kernel",
)


def solve(key, value, slot_mapping, k_cache, v_cache, k_scale, v_scale, num_blocks, block_size, num_kv_heads, head_dim, padding):  # fmt: skip
    tokens = num_blocks * block_size + padding
    blocks = (tokens * num_kv_heads + 3) // 4
    for x, cache, scale in ((key, k_cache, k_scale), (value, v_cache, v_scale)):
        quantize_kernel(
            (blocks,),
            (128,),
            (x, slot_mapping, cache, scale, cp.int32(tokens), cp.int32(num_kv_heads), cp.int32(head_dim)),
        )
