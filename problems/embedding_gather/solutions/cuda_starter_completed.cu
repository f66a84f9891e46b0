// Accepted: the CUDA starter completed as its TODO says: block blockIdx.x copies row
// indices[blockIdx.x] of the table into row blockIdx.x of out, the threads striding over the
// columns, with 64-bit row offsets.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void gather_kernel(const __nv_bfloat16* table, const int* indices, __nv_bfloat16* out, int dim) {
    long long src = (long long)indices[blockIdx.x] * dim;
    long long dst = (long long)blockIdx.x * dim;
    for (int j = threadIdx.x; j < dim; j += blockDim.x) {
        out[dst + j] = table[src + j];
    }
}

// table, indices and out are device pointers. Launch on the default stream; do not synchronize.
extern "C" void solve(const __nv_bfloat16* table, const int* indices, __nv_bfloat16* out, int num_tokens, int vocab,
                      int dim) {
    gather_kernel<<<num_tokens, 256>>>(table, indices, out, dim);
}
