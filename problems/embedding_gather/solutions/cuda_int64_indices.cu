// Wrong: declares the indices as 64-bit integers. Every read glues two int32 indices into one
// value; this version at least stays inside the index array (token t reads element t / 2) and
// inside the table (% vocab), so the result is wrong rather than a fault.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void gather_rows(const __nv_bfloat16* table, const long long* indices, __nv_bfloat16* out, int dim,
                            int vocab) {
    long long row = indices[blockIdx.x / 2] % vocab;
    if (row < 0) row += vocab;
    for (int i = threadIdx.x; i < dim; i += blockDim.x)
        out[(long long)blockIdx.x * dim + i] = table[row * dim + i];
}

extern "C" void solve(const __nv_bfloat16* table, const long long* indices, __nv_bfloat16* out, int num_tokens,
                      int vocab, int dim) {
    gather_rows<<<num_tokens, 256>>>(table, indices, out, dim, vocab);
}
