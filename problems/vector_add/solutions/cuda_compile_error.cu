// Compile error: the kernel uses `idx`, which is never declared (a rename left half done).
#include <cuda_runtime.h>

__global__ void add_kernel(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[idx] = a[idx] + b[idx];
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    add_kernel<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
