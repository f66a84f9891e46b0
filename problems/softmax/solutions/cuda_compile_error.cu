// Compile error: assigns a float to a float4 (the vectorised rewrite was not finished).
#include <cuda_runtime.h>

__global__ void softmax_kernel(const float* x, float* y, int m, int n) {
    const float* xr = x + (long long)blockIdx.x * n;
    float4 v = xr[threadIdx.x];
    y[(long long)blockIdx.x * n + threadIdx.x] = v.x;
}

extern "C" void solve(const float* x, float* y, int m, int n) {
    softmax_kernel<<<m, 256>>>(x, y, m, n);
}
