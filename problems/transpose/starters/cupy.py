import cupy as cp

TILE = 32

transpose_kernel = cp.RawKernel(
    r"""
extern "C" __global__ void transpose_kernel(const float* x, float* y, int m, int n) {
    // TODO: read the TILE x TILE tile of x this block owns and write it transposed into y
}
""",
    "transpose_kernel",
)


def solve(x: cp.ndarray, y: cp.ndarray, m: int, n: int) -> None:
    blocks = ((n + TILE - 1) // TILE, (m + TILE - 1) // TILE)
    transpose_kernel(blocks, (TILE, 8), (x, y, cp.int32(m), cp.int32(n)))
