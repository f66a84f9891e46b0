import cupy as cp

# CuPy has no bfloat16 dtype: a, b, bias and c arrive as uint16 arrays holding the bf16 bits.
# widen() and narrow() convert one value (narrow rounds to nearest even).
linear_gelu_kernel = cp.RawKernel(
    r"""
__device__ float widen(unsigned short h) { return __uint_as_float(((unsigned)h) << 16); }
__device__ unsigned short narrow(float f) {
    unsigned u = __float_as_uint(f);
    u += 0x7FFFu + ((u >> 16) & 1u);
    return (unsigned short)(u >> 16);
}
extern "C" __global__ void linear_gelu_kernel(const unsigned short* a, const unsigned short* b,
                                              const unsigned short* bias, unsigned short* c, int m, int n, int k) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    // TODO: when row < m and col < n: sum widen(a[row * k + p]) * widen(b[p * n + col]) in float,
    // add widen(bias[col]), apply GELU 0.5f * z * (1.0f + erff(z * 0.70710678f)), store narrow(...)
}
""",
    "linear_gelu_kernel",
)


def solve(a: cp.ndarray, b: cp.ndarray, bias: cp.ndarray, c: cp.ndarray, m: int, n: int, k: int) -> None:
    threads = (16, 16)
    blocks = ((n + 15) // 16, (m + 15) // 16)
    linear_gelu_kernel(blocks, threads, (a, b, bias, c, cp.int32(m), cp.int32(n), cp.int32(k)))
