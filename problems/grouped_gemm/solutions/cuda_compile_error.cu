// Compile error: the accumulator fragment declared with bf16 elements. WMMA on bf16 inputs
// accumulates in float only; there is no bf16 accumulator fragment to fill or to mma into.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

__global__ void grouped_gemm_kernel(const __nv_bfloat16* a, const __nv_bfloat16* w, const int* expert_offsets,
                                    __nv_bfloat16* c, int experts, int n, int k) {
    int e = blockIdx.y;
    int start = expert_offsets[e], end = expert_offsets[e + 1];
    if (end - start < 16) return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, __nv_bfloat16> acc;
    wmma::fill_fragment(acc, __float2bfloat16(0.0f));
    for (int p = 0; p < k; p += 16) {
        wmma::load_matrix_sync(fa, a + (long long)start * k + p, k);
        wmma::load_matrix_sync(fb, w + ((long long)e * n + blockIdx.x * 16) * k + p, k);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(c + (long long)start * n + blockIdx.x * 16, acc, n, wmma::mem_row_major);
}

extern "C" void solve(const __nv_bfloat16* a, const __nv_bfloat16* w, const int* expert_offsets, __nv_bfloat16* c,
                      int tokens, int experts, int active_experts, int n, int k) {
    grouped_gemm_kernel<<<dim3(n / 16, experts), 32>>>(a, w, expert_offsets, c, experts, n, k);
}
