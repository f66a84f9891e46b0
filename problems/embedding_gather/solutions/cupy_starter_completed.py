"""Accepted: the CuPy starter completed as its TODO says: block blockIdx.x copies row
indices[blockIdx.x] of the table into row blockIdx.x of out, the threads striding over the
columns, with 64-bit row offsets (as the statement asks: vocab * dim passes 2^31)."""

import cupy as cp

# CuPy has no bfloat16 dtype: table and out arrive as uint16 arrays holding the bf16 bits (a
# copy never needs to look inside them).
gather_kernel = cp.RawKernel(
    r"""
extern "C" __global__ void gather_kernel(const unsigned short* table, const int* indices, unsigned short* out, int dim) {
    long long src = (long long)indices[blockIdx.x] * dim;
    long long dst = (long long)blockIdx.x * dim;
    for (int j = threadIdx.x; j < dim; j += blockDim.x) {
        out[dst + j] = table[src + j];
    }
}
""",
    "gather_kernel",
)


def solve(table: cp.ndarray, indices: cp.ndarray, out: cp.ndarray, num_tokens: int, vocab: int, dim: int) -> None:
    gather_kernel((num_tokens,), (256,), (table, indices, out, cp.int32(dim)))
