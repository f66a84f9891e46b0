// Accepted: the CUDA starter completed as its TODO says. One warp per (token, output feature):
// each lane sums exact e4m3 products in float for p = lane, lane + 32, ...; the 32 partial sums
// are added with __shfl_down_sync and lane 0 applies both scales and writes the bf16 result.
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

__global__ void fp8_gemm_kernel(const __nv_fp8_e4m3* a, const __nv_fp8_e4m3* b, const float* a_scale,
                                const float* b_scale, __nv_bfloat16* c, int m, int n, int k) {
    long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    int token = (int)(warp / n);
    int feature = (int)(warp % n);
    if (token >= m) return;
    const __nv_fp8_e4m3* arow = a + (long long)token * k;
    const __nv_fp8_e4m3* brow = b + (long long)feature * k;
    float sum = 0.0f;
    for (int p = lane; p < k; p += 32) {
        sum += float(arow[p]) * float(brow[p]);
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    }
    if (lane == 0) {
        c[(long long)token * n + feature] = __float2bfloat16(sum * a_scale[token] * b_scale[feature]);
    }
}

// All pointers are device pointers. Launch on the default stream; do not synchronize.
extern "C" void solve(const __nv_fp8_e4m3* a, const __nv_fp8_e4m3* b, const float* a_scale, const float* b_scale,
                      __nv_bfloat16* c, int m, int n, int k) {
    long long warps = (long long)m * n;
    int threads = 256;
    long long blocks = (warps * 32 + threads - 1) / threads;
    fp8_gemm_kernel<<<(unsigned)blocks, threads>>>(a, b, a_scale, b_scale, c, m, n, k);
}
