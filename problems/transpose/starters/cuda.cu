#include <cuda_runtime.h>

constexpr int TILE = 32;

__global__ void transpose_kernel(const float* x, float* y, int m, int n) {
    // TODO: this block owns the tile starting at row blockIdx.y * TILE, column blockIdx.x * TILE
    // of x. Read it, then write it transposed into y (y is n x m).
}

// x and y are device pointers. Launch on the default stream; do not synchronize.
extern "C" void solve(const float* x, float* y, int m, int n) {
    dim3 threads(TILE, 8);
    dim3 blocks((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
    transpose_kernel<<<blocks, threads>>>(x, y, m, n);
}
