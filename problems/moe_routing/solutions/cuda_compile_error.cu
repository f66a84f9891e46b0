// Compile error: atomicAdd on a counter declared const.
#include <cuda_runtime.h>

__global__ void count_kernel(const int* ids, const int* counts, int total) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < total) atomicAdd(&counts[ids[i]], 1);
}

extern "C" void solve(const float* logits, int* topk_ids, float* topk_weights, int* expert_counts,
                      int* expert_offsets, int* permutation, int tokens, int experts, int top_k) {
    count_kernel<<<(tokens * top_k + 255) / 256, 256>>>(topk_ids, expert_counts, tokens * top_k);
}
