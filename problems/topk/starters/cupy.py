import cupy as cp

topk_rows = cp.RawKernel(
    r"""
extern "C" __global__ void topk_rows(const float* x, float* values, int* indices, int m, int n, int k) {
    // TODO: one thread per row keeps a sorted list of its best k (float best[64]; int where[64];)
    // and inserts every element that strictly beats the last entry; then writes the list out
}
""",
    "topk_rows",
)


def solve(x: cp.ndarray, values: cp.ndarray, indices: cp.ndarray, m: int, n: int, k: int) -> None:
    threads = 128
    blocks = (m + threads - 1) // threads
    topk_rows((blocks,), (threads,), (x, values, indices, cp.int32(m), cp.int32(n), cp.int32(k)))
