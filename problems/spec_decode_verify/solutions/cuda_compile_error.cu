// Compile error: the token ids' const int pointer used as a row of probabilities (a const int*
// does not convert to float*).
#include <cuda_runtime.h>

__global__ void verify_kernel(const int* ids, const float* draft_probs, const float* accept_uniforms, int* num_accepted,
                              int num_draft, int vocab) {
    long long seq = blockIdx.x;
    float* row = ids + seq * num_draft;
    if (threadIdx.x == 0) num_accepted[seq] = accept_uniforms[seq] < row[0] ? 1 : 0;
}

extern "C" void solve(const int* draft_token_ids, const float* draft_probs, const float* target_probs,
                      const float* accept_uniforms, const float* sample_uniforms, int* num_accepted, int* next_token,
                      int batch, int num_draft, int vocab) {
    verify_kernel<<<batch, 32>>>(draft_token_ids, draft_probs, accept_uniforms, num_accepted, num_draft, vocab);
}
