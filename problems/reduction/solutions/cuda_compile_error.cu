// Compile error: __shfl_down (without _sync) was removed from CUDA years ago.
#include <cuda_runtime.h>

__global__ void sum_kernel(const float* x, float* out, int n) {
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += x[i];
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down(acc, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, acc);
}

extern "C" void solve(const float* x, float* out, int n) {
    cudaMemsetAsync(out, 0, sizeof(float));
    sum_kernel<<<256, 256>>>(x, out, n);
}
