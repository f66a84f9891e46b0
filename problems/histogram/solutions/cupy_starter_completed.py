"""Accepted: the CuPy starter completed as its TODO says: counts zeroed first (counts.fill(0)
before the launch: a kernel cannot order its own zeroing before other blocks' atomics), then one
atomicAdd per value."""

import cupy as cp

histogram_kernel = cp.RawKernel(
    r"""
extern "C" __global__ void histogram_kernel(const int* data, int* counts, int n, int num_bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&counts[data[i]], 1);
    }
}
""",
    "histogram_kernel",
)


def solve(data: cp.ndarray, counts: cp.ndarray, n: int, num_bins: int) -> None:
    counts.fill(0)  # counts holds poison on entry; the atomics need zeros to start from
    threads = 256
    blocks = (n + threads - 1) // threads
    histogram_kernel((blocks,), (threads,), (data, counts, cp.int32(n), cp.int32(num_bins)))
