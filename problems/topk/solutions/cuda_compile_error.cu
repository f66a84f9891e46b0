// Compile error: a float pointer assigned to a float4 (the vector load needs a cast).
#include <cuda_runtime.h>

__global__ void topk_rows(const float* x, float* values, int* indices, int m, int n, int k) {
    const float* xr = x + (long long)blockIdx.x * n;
    float4 q = xr + 4 * threadIdx.x;
    values[blockIdx.x * k] = q.x;
}

extern "C" void solve(const float* x, float* values, int* indices, int m, int n, int k) {
    topk_rows<<<m, 256>>>(x, values, indices, m, n, k);
}
