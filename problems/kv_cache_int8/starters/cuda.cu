#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

// One warp per (token, head) row: blockDim.x = 128 (four rows a block), grid over the rows.
__global__ void quantize_kernel(const __nv_bfloat16* x, const int* slot_mapping, int8_t* cache, float* scale,
                                int tokens, int num_kv_heads, int head_dim) {
    long long row = (long long)blockIdx.x * 4 + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= (long long)tokens * num_kv_heads) return;
    // TODO: token t = row / num_kv_heads, head h = row % num_kv_heads; slot = slot_mapping[t]; a
    // padding token (slot < 0) writes nothing. absmax: each lane the max of |x| over its elements
    // (lane, lane + 32, ...), then the warp's max with __shfl_xor_sync. s = absmax / 127.0f;
    // q = __float2int_rn(x / s) (round half to even), s = 0 and q = 0 when absmax == 0. Store q at
    // cache[((long long)slot * num_kv_heads + h) * head_dim + i] and s at scale[slot * num_kv_heads + h].
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
