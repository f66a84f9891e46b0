// Accepted: 64x64 tiles through shared memory, 4x4 outputs per thread, fp32 FMAs (no tensor
// cores): correct for every shape, a long way from the roofline.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

constexpr int T = 64, TK = 16;

__global__ void gemm_tiled(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ b,
                           __nv_bfloat16* __restrict__ c, int m, int n, int k) {
    __shared__ float sa[TK][T + 1];
    __shared__ float sb[TK][T + 1];
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;  // 256 threads
    const int row0 = blockIdx.y * T, col0 = blockIdx.x * T;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < k; k0 += TK) {
        for (int i = threadIdx.x; i < T * TK; i += 256) {
            int r = i / TK, kk = i % TK;  // a tile: T rows x TK
            int gr = row0 + r, gk = k0 + kk;
            sa[kk][r] = (gr < m && gk < k) ? __bfloat162float(a[(long long)gr * k + gk]) : 0.0f;
            int kr = i / T, cc = i % T;  // b tile: TK rows x T
            int gkr = k0 + kr, gc = col0 + cc;
            sb[kr][cc] = (gkr < k && gc < n) ? __bfloat162float(b[(long long)gkr * n + gc]) : 0.0f;
        }
        __syncthreads();
        for (int kk = 0; kk < TK; ++kk) {
            float av[4], bv[4];
            for (int i = 0; i < 4; ++i) av[i] = sa[kk][ty * 4 + i];
            for (int j = 0; j < 4; ++j) bv[j] = sb[kk][tx * 4 + j];
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
            int r = row0 + ty * 4 + i, cc = col0 + tx * 4 + j;
            if (r < m && cc < n) c[(long long)r * n + cc] = __float2bfloat16_rn(acc[i][j]);
        }
}

extern "C" void solve(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int m, int n, int k) {
    dim3 grid((n + T - 1) / T, (m + T - 1) / T);
    gemm_tiled<<<grid, 256>>>(a, b, c, m, n, k);
}
