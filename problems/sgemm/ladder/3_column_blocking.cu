// Rung 3: 64 x 64 block tiles, k steps of 8, 512 threads each computing 8 outputs down a
// column (1D register blocking): the b value of a column is loaded from shared memory once and
// used for 8 FMAs.
#include <cuda_runtime.h>

constexpr int BM = 64, BN = 64, BK = 8, TM = 8;

__global__ void __launch_bounds__(BM * BN / TM) sgemm_column(const float* __restrict__ a, const float* __restrict__ b,
                                                             float* __restrict__ c, int m, int n, int k) {
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    const int tid = threadIdx.x;
    const int tcol = tid % BN, trow = tid / BN;  // this thread: column tcol, rows trow*TM .. +TM
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[TM] = {};
    for (int k0 = 0; k0 < k; k0 += BK) {
        const int ar = tid / BK, ac = tid % BK;  // 64 x 8 a tile, one value per thread
        As[ar][ac] = (row0 + ar < m && k0 + ac < k) ? a[(long long)(row0 + ar) * k + k0 + ac] : 0.0f;
        const int br = tid / BN, bc = tid % BN;  // 8 x 64 b tile, one value per thread
        Bs[br][bc] = (k0 + br < k && col0 + bc < n) ? b[(long long)(k0 + br) * n + col0 + bc] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int p = 0; p < BK; ++p) {
            const float bv = Bs[p][tcol];
#pragma unroll
            for (int i = 0; i < TM; ++i) acc[i] = fmaf(As[trow * TM + i][p], bv, acc[i]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int r = row0 + trow * TM + i, cc = col0 + tcol;
        if (r < m && cc < n) c[(long long)r * n + cc] = acc[i];
    }
}

extern "C" void solve(const float* a, const float* b, float* c, int m, int n, int k) {
    dim3 blocks((n + BN - 1) / BN, (m + BM - 1) / BM);
    sgemm_column<<<blocks, BM * BN / TM>>>(a, b, c, m, n, k);
}
