import cupy as cp

histogram_kernel = cp.RawKernel(
    r"""
extern "C" __global__ void histogram_kernel(const int* data, int* counts, int n, int num_bins) {
    // TODO: count the values (counts is poisoned by the judge: zero it first)
}
""",
    "histogram_kernel",
)


def solve(data: cp.ndarray, counts: cp.ndarray, n: int, num_bins: int) -> None:
    threads = 256
    blocks = (n + threads - 1) // threads
    histogram_kernel((blocks,), (threads,), (data, counts, cp.int32(n), cp.int32(num_bins)))
