// Accepted: one thread per element, bounds-checked.
#include <cuda_runtime.h>

__global__ void add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    int threads = 256;
    add_kernel<<<(n + threads - 1) / threads, threads>>>(a, b, c, n);
}
