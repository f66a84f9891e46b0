import cupy as cp

# CuPy has no bfloat16 dtype: w and x arrive as uint16 arrays holding the bf16 bits; a bf16
# value widens to float by shifting its bits 16 places left.
matvec_kernel = cp.RawKernel(
    r"""
extern "C" __global__ void matvec_kernel(const unsigned short* w, const unsigned short* x, float* y, int m, int k) {
    // TODO: one warp per row, fp32 partial sums, then a warp reduction
}
""",
    "matvec_kernel",
)


def solve(w: cp.ndarray, x: cp.ndarray, y: cp.ndarray, m: int, k: int) -> None:
    warps_per_block = 8
    blocks = (m + warps_per_block - 1) // warps_per_block
    matvec_kernel((blocks,), (warps_per_block * 32,), (w, x, y, cp.int32(m), cp.int32(k)))
