#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <math.h>

// One block per (sequence, query head).
__global__ void paged_attention_kernel(const __nv_bfloat16* q, const __nv_bfloat16* k_cache,
                                       const __nv_bfloat16* v_cache, const int* block_table, const int* seq_lens,
                                       __nv_bfloat16* out, int num_heads, int num_kv_heads, int head_dim,
                                       int block_size, int max_blocks_per_seq, float scale) {
    int seq = blockIdx.x;
    int head = blockIdx.y;
    int kv_head = head / (num_heads / num_kv_heads);
    int length = seq_lens[seq];
    // TODO: for each token t < length: page = block_table[seq * max_blocks_per_seq + t / block_size];
    // row = ((long long)page * block_size + t % block_size) * num_kv_heads + kv_head;
    // K row at k_cache + row * head_dim (same for V). Online softmax over the scores
    // q . k * scale, accumulate p * v in float, then write out[(seq * num_heads + head) * head_dim + d].
}

// All pointers are device pointers. Launch on the default stream; do not synchronize.
extern "C" void solve(const __nv_bfloat16* q, const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache,
                      const int* block_table, const int* seq_lens, __nv_bfloat16* out, int num_seqs, int num_heads,
                      int num_kv_heads, int head_dim, int block_size, int max_blocks_per_seq) {
    dim3 grid(num_seqs, num_heads);
    paged_attention_kernel<<<grid, 128>>>(q, k_cache, v_cache, block_table, seq_lens, out, num_heads, num_kv_heads,
                                          head_dim, block_size, max_blocks_per_seq, 1.0f / sqrtf((float)head_dim));
}
