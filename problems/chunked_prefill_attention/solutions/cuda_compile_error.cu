// Compile error: the warp reduction of the dot product written with the pre-CUDA 9 shuffle's
// arguments: __shfl_xor_sync needs the participating lanes' mask first, so (value, lane mask)
// matches no overload.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void prefill_kernel(const __nv_bfloat16* q, const __nv_bfloat16* k, __nv_bfloat16* out, int head_dim,
                               long long rows) {
    long long row = (long long)blockIdx.x * 4 + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    float dot = 0.0f;
    for (int d = lane; d < head_dim; d += 32) dot += __bfloat162float(q[row * head_dim + d]) * __bfloat162float(k[d]);
    for (int o = 16; o > 0; o /= 2) dot += __shfl_xor_sync(dot, o);
    if (lane == 0) out[row * head_dim] = __float2bfloat16(dot);
}

extern "C" void solve(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                      const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache, const int* block_table,
                      const int* prefix_lens, __nv_bfloat16* out, int num_seqs, int chunk_len, int num_heads,
                      int num_kv_heads, int head_dim, int block_size, int max_blocks_per_seq) {
    long long rows = (long long)num_seqs * chunk_len * num_heads;
    prefill_kernel<<<(unsigned)((rows + 3) / 4), 128>>>(q, k, out, head_dim, rows);
}
