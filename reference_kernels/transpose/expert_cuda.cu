// Expert CUDA solution for transpose (obeys the contract).
//
// Each 256-thread block moves a 64 x 64 tile (16 KiB) through shared memory: rows of x are read
// as float4 (16 bytes per thread, 512 bytes per warp) when the row length allows it, the tile is
// padded by one float per row so a tile column spans all 32 banks, and y is written row by row
// in full 128-byte lines. Sixteen elements per thread keep enough loads in flight to hide DRAM
// latency with two to three blocks per SM.
#include <cuda_runtime.h>

constexpr int TILE = 64;
constexpr int THREADS = 256;

__global__ void __launch_bounds__(THREADS) transpose_tiles(const float* __restrict__ x, float* __restrict__ y,
                                                           int m, int n) {
    __shared__ float tile[TILE][TILE + 1];
    const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
    const bool full = row0 + TILE <= m && col0 + TILE <= n;
    if (full && (n % 4) == 0) {
        // 16 float4 per row, 256 threads: 16 rows per pass, 4 passes.
        const int c4 = threadIdx.x % 16, r = threadIdx.x / 16;
        for (int rr = r; rr < TILE; rr += THREADS / 16) {
            float4 v = *reinterpret_cast<const float4*>(x + (long long)(row0 + rr) * n + col0 + 4 * c4);
            tile[rr][4 * c4 + 0] = v.x;
            tile[rr][4 * c4 + 1] = v.y;
            tile[rr][4 * c4 + 2] = v.z;
            tile[rr][4 * c4 + 3] = v.w;
        }
    } else {
        const int c = threadIdx.x % TILE, r = threadIdx.x / TILE;
        for (int rr = r; rr < TILE; rr += THREADS / TILE) {
            if (row0 + rr < m && col0 + c < n) tile[rr][c] = x[(long long)(row0 + rr) * n + col0 + c];
        }
    }
    __syncthreads();
    // y row (col0 + rr) gets tile column rr: consecutive threads write consecutive floats of y.
    const int c = threadIdx.x % TILE, r = threadIdx.x / TILE;
    for (int rr = r; rr < TILE; rr += THREADS / TILE) {
        if (col0 + rr < n && row0 + c < m) y[(long long)(col0 + rr) * m + row0 + c] = tile[c][rr];
    }
}

extern "C" void solve(const float* x, float* y, int m, int n) {
    dim3 blocks((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
    transpose_tiles<<<blocks, THREADS>>>(x, y, m, n);
}
