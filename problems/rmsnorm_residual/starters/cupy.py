import cupy as cp

# CuPy has no bfloat16 dtype: the tensors arrive as uint16 arrays holding the bf16 bits (widen
# with a 16-bit shift, round back to nearest-even by hand).
add_rmsnorm_kernel = cp.RawKernel(
    r"""
extern "C" __global__ void add_rmsnorm_kernel(const unsigned short* x, const unsigned short* residual,
                                              const unsigned short* weight, unsigned short* h, unsigned short* y,
                                              int n) {
    // TODO: one block per row: fp32 sum, store h, sum of squares, store y
}
""",
    "add_rmsnorm_kernel",
)


def solve(
    x: cp.ndarray, residual: cp.ndarray, weight: cp.ndarray, h: cp.ndarray, y: cp.ndarray, m: int, n: int
) -> None:
    add_rmsnorm_kernel((m,), (256,), (x, residual, weight, h, y, cp.int32(n)))
