"""Accepted: the CuPy starter completed as its TODO says: this thread's index, bounds-checked,
c[i] = a[i] + b[i]."""

import cupy as cp

add_kernel = cp.RawKernel(
    r"""
extern "C" __global__ void add_kernel(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
""",
    "add_kernel",
)


def solve(a: cp.ndarray, b: cp.ndarray, c: cp.ndarray, n: int) -> None:
    threads = 256
    blocks = (n + threads - 1) // threads
    add_kernel((blocks,), (threads,), (a, b, c, cp.int32(n)))
