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
    // TODO: token t = row / num_kv_heads, head h = row % num_kv_heads; slot = slot_mapping[t]; a
    // padding token (slot < 0) writes nothing. Element i is __uint_as_float((unsigned)x[row *
    // head_dim + i] << 16). absmax: each lane's max of |x| over (lane, lane + 32, ...), then the
    // warp's with __shfl_xor_sync. s = absmax / 127.0f; q = __float2int_rn(x / s) (half to even);
    // s = 0 and q = 0 when absmax == 0. Store q at cache[((long long)slot * num_kv_heads + h) *
    // head_dim + i] and s at scale[slot * num_kv_heads + h].
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
