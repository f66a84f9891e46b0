import cupy as cp

# CuPy has no bfloat16 dtype: table and out arrive as uint16 arrays holding the bf16 bits (a
# copy never needs to look inside them).
gather_kernel = cp.RawKernel(
    r"""
extern "C" __global__ void gather_kernel(const unsigned short* table, const int* indices, unsigned short* out, int dim) {
    // TODO: block blockIdx.x copies row indices[blockIdx.x] of table into row blockIdx.x of out
}
""",
    "gather_kernel",
)


def solve(table: cp.ndarray, indices: cp.ndarray, out: cp.ndarray, num_tokens: int, vocab: int, dim: int) -> None:
    gather_kernel((num_tokens,), (256,), (table, indices, out, cp.int32(dim)))
