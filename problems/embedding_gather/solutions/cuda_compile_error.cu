// Compile error: __nv_bfloat16 is declared in cuda_bf16.h, which is not included.
#include <cuda_runtime.h>

__global__ void gather_rows(const __nv_bfloat16* table, const int* indices, __nv_bfloat16* out, int dim) {
    long long row = indices[blockIdx.x];
    for (int i = threadIdx.x; i < dim; i += blockDim.x) out[(long long)blockIdx.x * dim + i] = table[row * dim + i];
}

extern "C" void solve(const __nv_bfloat16* table, const int* indices, __nv_bfloat16* out, int num_tokens, int vocab,
                      int dim) {
    gather_rows<<<num_tokens, 256>>>(table, indices, out, dim);
}
