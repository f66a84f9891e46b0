// Compile error: a float4 assigned from a float pointer's element (no conversion from float to
// float4).
#include <cuda_runtime.h>

__global__ void top_p_kernel(const float* probs, const float* top_p, const float* uniforms, int* token_ids, int vocab) {
    const float* row = probs + (long long)blockIdx.x * vocab;
    float4 v = row[threadIdx.x];
    if (threadIdx.x == 0) token_ids[blockIdx.x] = v.x > top_p[blockIdx.x] ? 0 : 1;
}

extern "C" void solve(const float* probs, const float* top_p, const float* uniforms, int* token_ids, int batch, int vocab) {
    top_p_kernel<<<batch, 256>>>(probs, top_p, uniforms, token_ids, vocab);
}
