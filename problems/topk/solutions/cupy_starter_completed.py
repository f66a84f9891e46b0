"""Accepted: the CuPy starter completed as its TODO says: one thread per row keeps a sorted list
of its best k and inserts every element that strictly beats the last entry."""

import cupy as cp

topk_rows = cp.RawKernel(
    r"""
extern "C" __global__ void topk_rows(const float* x, float* values, int* indices, int m, int n, int k) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m) return;
    const float* xr = x + (long long)row * n;
    float best[64];
    int where[64];
    int count = 0;
    for (int j = 0; j < n; ++j) {
        float v = xr[j];
        if (count == k && !(v > best[k - 1])) continue;
        int pos = count < k ? count++ : k - 1;
        while (pos > 0 && best[pos - 1] < v) {
            best[pos] = best[pos - 1];
            where[pos] = where[pos - 1];
            --pos;
        }
        best[pos] = v;
        where[pos] = j;
    }
    for (int r = 0; r < k; ++r) {
        values[(long long)row * k + r] = best[r];
        indices[(long long)row * k + r] = where[r];
    }
}
""",
    "topk_rows",
)


def solve(x: cp.ndarray, values: cp.ndarray, indices: cp.ndarray, m: int, n: int, k: int) -> None:
    threads = 128
    blocks = (m + threads - 1) // threads
    topk_rows((blocks,), (threads,), (x, values, indices, cp.int32(m), cp.int32(n), cp.int32(k)))
