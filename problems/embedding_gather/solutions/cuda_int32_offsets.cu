// Runtime error: indices[t] * dim is computed in 32-bit int. Past 2^31 elements (a 270000 x 8192 table)
// the offset wraps negative and the kernel reads far before the table: an illegal address.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void gather_rows(const __nv_bfloat16* table, const int* indices, __nv_bfloat16* out, int dim) {
    int offset = indices[blockIdx.x] * dim;
    for (int i = threadIdx.x; i < dim; i += blockDim.x) out[(long long)blockIdx.x * dim + i] = table[offset + i];
}

extern "C" void solve(const __nv_bfloat16* table, const int* indices, __nv_bfloat16* out, int num_tokens, int vocab,
                      int dim) {
    gather_rows<<<num_tokens, 256>>>(table, indices, out, dim);
}
