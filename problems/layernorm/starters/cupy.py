import cupy as cp

layernorm_kernel = cp.RawKernel(
    r"""
extern "C" __global__ void layernorm_kernel(const float* x, const float* weight, const float* bias, float* y, int n) {
    // TODO: one block per row: mean, variance of x - mean (divided by n), normalise, scale, shift
}
""",
    "layernorm_kernel",
)


def solve(x: cp.ndarray, weight: cp.ndarray, bias: cp.ndarray, y: cp.ndarray, m: int, n: int) -> None:
    layernorm_kernel((m,), (256,), (x, weight, bias, y, cp.int32(n)))
