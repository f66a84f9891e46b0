// Compile error: __syncthreads() takes no argument (__syncthreads_count does).
#include <cuda_runtime.h>

__global__ void scan_tiles(const float* x, float* y, int n) {
    __shared__ float s[256];
    int i = blockIdx.x * 256 + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads(256);
    if (i < n) y[i] = s[threadIdx.x];
}

extern "C" void solve(const float* x, float* y, int n) {
    scan_tiles<<<(n + 255) / 256, 256>>>(x, y, n);
}
