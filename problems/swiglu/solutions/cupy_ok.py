"""Accepted: a grid-stride RawKernel over every element; bf16 bits widened by a 16-bit shift,
SiLU(gate) * up in fp32, rounded back to the nearest bf16 by hand."""

import cupy as cp

_kernel = cp.RawKernel(
    r"""
__device__ float from_bf16(unsigned short v) { return __uint_as_float(((unsigned int)v) << 16); }
__device__ unsigned short to_bf16(float f) {
    unsigned int u = __float_as_uint(f);
    u += 0x7FFFu + ((u >> 16) & 1u);
    return (unsigned short)(u >> 16);
}
extern "C" __global__ void swiglu_stride(const unsigned short* gate, const unsigned short* up, unsigned short* out,
                                         long long total) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
        float g = from_bf16(gate[i]);
        out[i] = to_bf16(g / (1.0f + expf(-g)) * from_bf16(up[i]));
    }
}
""",
    "swiglu_stride",
)


def solve(gate: cp.ndarray, up: cp.ndarray, out: cp.ndarray, m: int, n: int) -> None:
    total = m * n
    blocks = min((total + 255) // 256, 4096)
    _kernel((blocks,), (256,), (gate, up, out, cp.int64(total)))
