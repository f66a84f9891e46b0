"""Accepted: the CuPy starter completed as its TODO says: one thread per element; the bf16 bits of
gate and up are widened by a 16-bit shift, g / (1 + expf(-g)) * u is computed in fp32 and rounded
back to the nearest bf16 (ties to even) by hand."""

import cupy as cp

# CuPy has no bfloat16 dtype: the tensors arrive as uint16 arrays holding the bf16 bits (widen
# with a 16-bit shift, round back to nearest-even by hand).
swiglu_kernel = cp.RawKernel(
    r"""
__device__ float widen(unsigned short bits) { return __uint_as_float((unsigned int)bits << 16); }

// Round to the nearest bf16, ties to even: add just under half of the dropped part's range (plus
// one when the kept part is odd) and drop the low 16 bits.
__device__ unsigned short narrow(float value) {
    unsigned int bits = __float_as_uint(value);
    bits += 0x7FFFu + ((bits >> 16) & 1u);
    return (unsigned short)(bits >> 16);
}

extern "C" __global__ void swiglu_kernel(const unsigned short* gate, const unsigned short* up, unsigned short* out,
                                         long long total) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;
    float g = widen(gate[i]);
    float u = widen(up[i]);
    out[i] = narrow(g / (1.0f + expf(-g)) * u);
}
""",
    "swiglu_kernel",
)


def solve(gate: cp.ndarray, up: cp.ndarray, out: cp.ndarray, m: int, n: int) -> None:
    total = m * n
    swiglu_kernel(((total + 255) // 256,), (256,), (gate, up, out, cp.int64(total)))
