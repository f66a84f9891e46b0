"""Accepted: the padded shared-memory tile as a CuPy RawKernel."""

import cupy as cp

TILE = 32

_kernel = cp.RawKernel(
    r"""
extern "C" __global__ void tile_transpose(const float* x, float* y, int m, int n) {
    __shared__ float tile[32][33];
    int col = blockIdx.x * 32 + threadIdx.x;
    int row0 = blockIdx.y * 32;
    for (int r = threadIdx.y; r < 32; r += 8) {
        int row = row0 + r;
        if (row < m && col < n) tile[r][threadIdx.x] = x[(long long)row * n + col];
    }
    __syncthreads();
    int out_col = row0 + threadIdx.x;
    for (int r = threadIdx.y; r < 32; r += 8) {
        int out_row = blockIdx.x * 32 + r;
        if (out_row < n && out_col < m) y[(long long)out_row * m + out_col] = tile[threadIdx.x][r];
    }
}
""",
    "tile_transpose",
)


def solve(x: cp.ndarray, y: cp.ndarray, m: int, n: int) -> None:
    blocks = ((n + TILE - 1) // TILE, (m + TILE - 1) // TILE)
    _kernel(blocks, (TILE, 8), (x, y, cp.int32(m), cp.int32(n)))
