"""Accepted: tile scans in shared memory, the totals scanned recursively, carries added; as
RawKernels."""

import cupy as cp

THREADS = 256

_scan = cp.RawKernel(
    r"""
extern "C" __global__ void tile_scan(const float* x, float* y, float* totals, int n) {
    __shared__ float buf[2][256];
    long long i = (long long)blockIdx.x * 256 + threadIdx.x;
    int cur = 0;
    buf[cur][threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int offset = 1; offset < 256; offset <<= 1) {
        float s = buf[cur][threadIdx.x];
        if (threadIdx.x >= offset) s += buf[cur][threadIdx.x - offset];
        buf[cur ^ 1][threadIdx.x] = s;
        cur ^= 1;
        __syncthreads();
    }
    if (i < n) y[i] = buf[cur][threadIdx.x];
    if (threadIdx.x == 255) totals[blockIdx.x] = buf[cur][255];
}
""",
    "tile_scan",
)

_carry = cp.RawKernel(
    r"""
extern "C" __global__ void tile_carry(float* y, const float* carries, int n) {
    long long i = (long long)(blockIdx.x + 1) * 256 + threadIdx.x;
    if (i < n) y[i] += carries[blockIdx.x];
}
""",
    "tile_carry",
)


def solve(x: cp.ndarray, y: cp.ndarray, n: int) -> None:
    tiles = (n + THREADS - 1) // THREADS
    totals = cp.empty(tiles, dtype=cp.float32)
    _scan((tiles,), (THREADS,), (x, y, totals, cp.int32(n)))
    if tiles > 1:
        carries = cp.empty(tiles, dtype=cp.float32)
        solve(totals, carries, tiles)
        _carry((tiles - 1,), (THREADS,), (y, carries, cp.int32(n)))
