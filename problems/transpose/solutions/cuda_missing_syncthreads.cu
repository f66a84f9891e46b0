// Wrong: no __syncthreads() between filling the shared tile and reading it transposed. Warp w
// writes rows w, w+8, ... of the tile but reads row threadIdx.x, written by another warp that
// may not have stored it yet (its global load still in flight).
#include <cuda_runtime.h>

__global__ void transpose_kernel(const float* x, float* y, int m, int n) {
    __shared__ float tile[32][33];
    int col = blockIdx.x * 32 + threadIdx.x;
    int row0 = blockIdx.y * 32;
    for (int r = threadIdx.y; r < 32; r += 8) {
        int row = row0 + r;
        if (row < m && col < n) tile[r][threadIdx.x] = x[(long long)row * n + col];
    }
    int out_col = row0 + threadIdx.x;
    for (int r = threadIdx.y; r < 32; r += 8) {
        int out_row = blockIdx.x * 32 + r;
        if (out_row < n && out_col < m) y[(long long)out_row * m + out_col] = tile[threadIdx.x][r];
    }
}

extern "C" void solve(const float* x, float* y, int m, int n) {
    dim3 threads(32, 8);
    dim3 blocks((n + 31) / 32, (m + 31) / 32);
    transpose_kernel<<<blocks, threads>>>(x, y, m, n);
}
