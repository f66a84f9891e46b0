// Compile error: a shared-memory array needs a size known at compile time.
#include <cuda_runtime.h>

__global__ void transpose_kernel(const float* x, float* y, int m, int n, int tile_size) {
    __shared__ float tile[tile_size][tile_size + 1];
    tile[threadIdx.y][threadIdx.x] = x[threadIdx.y * n + threadIdx.x];
    __syncthreads();
    y[threadIdx.x * m + threadIdx.y] = tile[threadIdx.y][threadIdx.x];
}

extern "C" void solve(const float* x, float* y, int m, int n) {
    transpose_kernel<<<1, dim3(32, 32)>>>(x, y, m, n, 32);
}
