// Rung 3: the same tile padded to [32][33]. Element (r, c) sits in bank (33 r + c) % 32 =
// (r + c) % 32, so the 32 elements of a column are in 32 different banks: no more conflicts.
#include <cuda_runtime.h>

__global__ void transpose_padded(const float* __restrict__ x, float* __restrict__ y, int m, int n) {
    __shared__ float tile[32][33];
    const int col = blockIdx.x * 32 + threadIdx.x, row = blockIdx.y * 32 + threadIdx.y;
    if (row < m && col < n) tile[threadIdx.y][threadIdx.x] = x[(long long)row * n + col];
    __syncthreads();
    const int out_row = blockIdx.x * 32 + threadIdx.y, out_col = blockIdx.y * 32 + threadIdx.x;
    if (out_row < n && out_col < m) y[(long long)out_row * m + out_col] = tile[threadIdx.x][threadIdx.y];
}

extern "C" void solve(const float* x, float* y, int m, int n) {
    dim3 threads(32, 32);
    dim3 blocks((n + 31) / 32, (m + 31) / 32);
    transpose_padded<<<blocks, threads>>>(x, y, m, n);
}
