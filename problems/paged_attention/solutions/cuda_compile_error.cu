// Compile error: the kernel is launched with a parameter list that does not match its declaration
// (a parameter was added to the kernel but not to the launch).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void attention(const __nv_bfloat16* q, const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache,
                          const int* block_table, const int* seq_lens, __nv_bfloat16* out, int num_heads,
                          int num_kv_heads, int head_dim, int block_size, int max_blocks, float scale) {}

extern "C" void solve(const __nv_bfloat16* q, const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache,
                      const int* block_table, const int* seq_lens, __nv_bfloat16* out, int num_seqs, int num_heads,
                      int num_kv_heads, int head_dim, int block_size, int max_blocks_per_seq) {
    attention<<<num_seqs, 128>>>(q, k_cache, v_cache, block_table, seq_lens, out, num_heads, head_dim,
                                 block_size, max_blocks_per_seq, 1.0f, kv_scale);
}
