// Compile error: rsqrtf takes one argument.
#include <cuda_runtime.h>

__global__ void layernorm_rows(const float* x, const float* w, const float* b, float* y, int n) {
    float v = x[(long long)blockIdx.x * n + threadIdx.x];
    float rstd = rsqrtf(v * v, 1e-5f);
    y[(long long)blockIdx.x * n + threadIdx.x] = v * rstd * w[threadIdx.x] + b[threadIdx.x];
}

extern "C" void solve(const float* x, const float* weight, const float* bias, float* y, int m, int n) {
    layernorm_rows<<<m, n>>>(x, weight, bias, y, n);
}
