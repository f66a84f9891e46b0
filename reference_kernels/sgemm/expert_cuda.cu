// Expert CUDA solution for sgemm (obeys the contract): fp32 FMAs on CUDA cores, no tensor cores.
//
// Block tile 128 x 128, k step 8, 256 threads each computing an 8 x 8 block of outputs held in
// 64 registers (register blocking: every value read from shared memory feeds 8 FMAs). The a tile
// is stored transposed (As[k][m]) so both operands are read from shared memory as float4
// vectors along the output tile. Edges are zero-filled on load and guarded on store, so any
// m, n, k works; the interior pays no extra cost beyond the bounds tests on the loads.
#include <cuda_runtime.h>

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int THREADS = (BM / TM) * (BN / TN);  // 256

__global__ void __launch_bounds__(THREADS) sgemm_blocked(const float* __restrict__ a, const float* __restrict__ b,
                                                         float* __restrict__ c, int m, int n, int k) {
    __shared__ __align__(16) float As[BK][BM];
    __shared__ __align__(16) float Bs[BK][BN];
    const int tid = threadIdx.x;
    const int tx = tid % (BN / TN), ty = tid / (BN / TN);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    // Loader coordinates: a tile is 128 x 8 (4 consecutive k per thread), b tile 8 x 128.
    const int a_r = tid / 2, a_c = (tid % 2) * 4;
    const int b_r = tid / 32, b_c = (tid % 32) * 4;

    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < k; k0 += BK) {
        const int ar = row0 + a_r;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int kk = k0 + a_c + j;
            As[a_c + j][a_r] = (ar < m && kk < k) ? a[(long long)ar * k + kk] : 0.0f;
        }
        const int bk = k0 + b_r;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int bc = col0 + b_c + j;
            Bs[b_r][b_c + j] = (bk < k && bc < n) ? b[(long long)bk * n + bc] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float ra[TM], rb[TN];
            const float4* pa = reinterpret_cast<const float4*>(&As[kk][ty * TM]);
            const float4* pb = reinterpret_cast<const float4*>(&Bs[kk][tx * TN]);
            float4 a0 = pa[0], a1 = pa[1], b0 = pb[0], b1 = pb[1];
            ra[0] = a0.x, ra[1] = a0.y, ra[2] = a0.z, ra[3] = a0.w, ra[4] = a1.x, ra[5] = a1.y, ra[6] = a1.z, ra[7] = a1.w;
            rb[0] = b0.x, rb[1] = b0.y, rb[2] = b0.z, rb[3] = b0.w, rb[4] = b1.x, rb[5] = b1.y, rb[6] = b1.z, rb[7] = b1.w;
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int r = row0 + ty * TM + i;
        if (r >= m) break;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const int cc = col0 + tx * TN + j;
            if (cc < n) c[(long long)r * n + cc] = acc[i][j];
        }
    }
}

extern "C" void solve(const float* a, const float* b, float* c, int m, int n, int k) {
    dim3 blocks((n + BN - 1) / BN, (m + BM - 1) / BM);
    sgemm_blocked<<<blocks, THREADS>>>(a, b, c, m, n, k);
}
