"""Accepted: the CuPy starter completed as its TODO says: the block reads the TILE x TILE tile of
x it owns into shared memory (32 x 8 threads, four rows each, bounds-checked), synchronises, and
writes it transposed into y (n x m), reads and writes both running along rows."""

import cupy as cp

TILE = 32

transpose_kernel = cp.RawKernel(
    r"""
extern "C" __global__ void transpose_kernel(const float* x, float* y, int m, int n) {
    __shared__ float tile[32][33];  // 33: a column of the tile spans all 32 banks
    int row0 = blockIdx.y * 32;     // first row of x in this tile
    int col0 = blockIdx.x * 32;     // first column of x in this tile
    int col = col0 + threadIdx.x;
    for (int r = threadIdx.y; r < 32; r += blockDim.y) {
        if (row0 + r < m && col < n) {
            tile[r][threadIdx.x] = x[(long long)(row0 + r) * n + col];
        }
    }
    __syncthreads();
    // Row col0 + r of y holds column col0 + r of x; its entries run over the tile's rows of x.
    int y_col = row0 + threadIdx.x;
    for (int r = threadIdx.y; r < 32; r += blockDim.y) {
        if (col0 + r < n && y_col < m) {
            y[(long long)(col0 + r) * m + y_col] = tile[threadIdx.x][r];
        }
    }
}
""",
    "transpose_kernel",
)


def solve(x: cp.ndarray, y: cp.ndarray, m: int, n: int) -> None:
    blocks = ((n + TILE - 1) // TILE, (m + TILE - 1) // TILE)
    transpose_kernel(blocks, (TILE, 8), (x, y, cp.int32(m), cp.int32(n)))
