// Compile error: a float accumulator passed where the kernel expects a pointer.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void decode_gemm_kernel(const __nv_bfloat16* a, const __nv_bfloat16* w, float* partial, int m, int n,
                                   int k) {
    int feature = blockIdx.x * blockDim.x + threadIdx.x;
    if (feature >= n) return;
    for (int p = 0; p < k; ++p) partial[feature] += __bfloat162float(a[p]) * __bfloat162float(w[feature * k + p]);
}

extern "C" void solve(const __nv_bfloat16* a, const __nv_bfloat16* w, __nv_bfloat16* c, int m, int n, int k) {
    float accumulator = 0.0f;
    decode_gemm_kernel<<<(n + 255) / 256, 256>>>(a, w, accumulator, m, n, k);
}
