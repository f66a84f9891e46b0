// Rung 2: stage a 32 x 32 tile in shared memory (32 x 32 threads, one element each). Both the
// global read and the global write are now row-wise and coalesced; the transposed read of the
// tile walks a column of a [32][32] array, which lies in a single shared-memory bank.
#include <cuda_runtime.h>

__global__ void transpose_shared(const float* __restrict__ x, float* __restrict__ y, int m, int n) {
    __shared__ float tile[32][32];
    const int col = blockIdx.x * 32 + threadIdx.x, row = blockIdx.y * 32 + threadIdx.y;
    if (row < m && col < n) tile[threadIdx.y][threadIdx.x] = x[(long long)row * n + col];
    __syncthreads();
    const int out_row = blockIdx.x * 32 + threadIdx.y, out_col = blockIdx.y * 32 + threadIdx.x;
    if (out_row < n && out_col < m) y[(long long)out_row * m + out_col] = tile[threadIdx.x][threadIdx.y];
}

extern "C" void solve(const float* x, float* y, int m, int n) {
    dim3 threads(32, 32);
    dim3 blocks((n + 31) / 32, (m + 31) / 32);
    transpose_shared<<<blocks, threads>>>(x, y, m, n);
}
