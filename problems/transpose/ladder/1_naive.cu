// Rung 1: one thread per element. Threads of a warp read 32 consecutive floats of a row of x
// (coalesced) and write them 4 * m bytes apart in y: every store is its own 32-byte sector.
#include <cuda_runtime.h>

__global__ void transpose_naive(const float* __restrict__ x, float* __restrict__ y, int m, int n) {
    const int col = blockIdx.x * 32 + threadIdx.x;
    const int row = blockIdx.y * 8 + threadIdx.y;
    if (row < m && col < n) y[(long long)col * m + row] = x[(long long)row * n + col];
}

extern "C" void solve(const float* x, float* y, int m, int n) {
    dim3 threads(32, 8);
    dim3 blocks((n + 31) / 32, (m + 7) / 8);
    transpose_naive<<<blocks, threads>>>(x, y, m, n);
}
