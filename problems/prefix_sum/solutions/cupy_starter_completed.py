"""Accepted: the CuPy starter completed as its TODOs say: each block scans its tile of 256 in
shared memory (Hillis-Steele) and stores its total; the totals are scanned by this same solve,
recursively, and a second kernel adds to every tile after the first the total of the tiles
before it."""

import cupy as cp

scan_kernel = cp.RawKernel(
    r"""
extern "C" __global__ void scan_kernel(const float* x, float* y, float* totals, int n) {
    __shared__ float tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        float before = threadIdx.x >= offset ? tile[threadIdx.x - offset] : 0.0f;
        __syncthreads();  // every read of this step is done before any write
        tile[threadIdx.x] += before;
        __syncthreads();
    }
    if (i < n) {
        y[i] = tile[threadIdx.x];
    }
    if (threadIdx.x == blockDim.x - 1) {
        totals[blockIdx.x] = tile[threadIdx.x];  // lanes past n added zeros
    }
}
""",
    "scan_kernel",
)

add_carries_kernel = cp.RawKernel(
    r"""
extern "C" __global__ void add_carries_kernel(float* y, const float* scanned_totals, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x > 0 && i < n) {
        y[i] += scanned_totals[blockIdx.x - 1];
    }
}
""",
    "add_carries_kernel",
)


def solve(x: cp.ndarray, y: cp.ndarray, n: int) -> None:
    threads = 256
    tiles = (n + threads - 1) // threads
    totals = cp.empty(tiles, dtype=cp.float32)
    scan_kernel((tiles,), (threads,), (x, y, totals, cp.int32(n)))
    if tiles > 1:
        scanned_totals = cp.empty(tiles, dtype=cp.float32)
        solve(totals, scanned_totals, tiles)
        add_carries_kernel((tiles,), (threads,), (y, scanned_totals, cp.int32(n)))
