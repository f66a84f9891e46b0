// Rejected: TF32 tensor cores through WMMA (16x16x8 fragments). Tensor cores are not allowed in
// this problem; the source scan refuses it before it compiles.
#include <cuda_runtime.h>
#include <mma.h>
using namespace nvcuda;

__global__ void sgemm_wmma(const float* a, const float* b, float* c, int m, int n, int k) {
    int tile_m = blockIdx.y * 16, tile_n = blockIdx.x * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    for (int p = 0; p < k; p += 8) {
        wmma::load_matrix_sync(fa, a + (long long)tile_m * k + p, k);
        wmma::load_matrix_sync(fb, b + (long long)p * n + tile_n, n);
        wmma::mma_sync(fc, fa, fb, fc);
    }
    wmma::store_matrix_sync(c + (long long)tile_m * n + tile_n, fc, n, wmma::mem_row_major);
}

extern "C" void solve(const float* a, const float* b, float* c, int m, int n, int k) {
    sgemm_wmma<<<dim3(n / 16, m / 16), 32>>>(a, b, c, m, n, k);
}
