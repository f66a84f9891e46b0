// Compile error: expf applied to a bf16 pair without converting it to float first.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <math.h>

__global__ void attention_kernel(const __nv_bfloat162* scores, float* probs, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) probs[i] = expf(scores[i]);
}

extern "C" void solve(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* out,
                      int batch, int heads, int seq, int head_dim, int mask_mode) {
    attention_kernel<<<1, 32>>>(reinterpret_cast<const __nv_bfloat162*>(q), nullptr, 0);
}
