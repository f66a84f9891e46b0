// Accepted: one warp per output feature; the warp walks the feature's weight row once per group
// of 8 tokens, each lane keeping 8 fp32 sums (one per token of the group), then a shuffle tree per
// token. The weight is read ceil(m / 8) times instead of m times.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

constexpr int kGroup = 8;

__global__ void decode_gemm_rows(const __nv_bfloat16* a, const __nv_bfloat16* w, __nv_bfloat16* c, int m, int n,
                                 int k) {
    int feature = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (feature >= n) return;
    const __nv_bfloat16* wrow = w + (long long)feature * k;
    for (int t0 = 0; t0 < m; t0 += kGroup) {
        float sum[kGroup];
#pragma unroll
        for (int i = 0; i < kGroup; ++i) sum[i] = 0.0f;
        for (int p = lane; p < k; p += 32) {
            float wv = __bfloat162float(wrow[p]);
#pragma unroll
            for (int i = 0; i < kGroup; ++i) {
                if (t0 + i < m) sum[i] = fmaf(__bfloat162float(a[(long long)(t0 + i) * k + p]), wv, sum[i]);
            }
        }
#pragma unroll
        for (int i = 0; i < kGroup; ++i) {
            float s = sum[i];
            for (int offset = 16; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, offset);
            if (lane == 0 && t0 + i < m) c[(long long)(t0 + i) * n + feature] = __float2bfloat16(s);
        }
    }
}

extern "C" void solve(const __nv_bfloat16* a, const __nv_bfloat16* w, __nv_bfloat16* c, int m, int n, int k) {
    const int warps = 8;
    decode_gemm_rows<<<(n + warps - 1) / warps, 32 * warps>>>(a, w, c, m, n, k);
}
