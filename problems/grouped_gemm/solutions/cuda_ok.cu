// Accepted: one launch over a flat list of 64-row tiles. A block takes one tile of 64 rows of one
// expert and 64 output columns; warp 0 finds the tile's expert from the offsets (tiles per expert,
// a shuffle scan 32 experts at a time). Experts without rows have no tiles. The a and w slabs go
// through shared memory with bounds checks (any k, any alignment); four warps each multiply a
// 32 x 32 part with bf16 WMMA fragments and fp32 accumulators.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define BM 64
#define BN 64
#define BK 32
#define PAD 8  // row stride 40 elements: fragment pointers stay 32-byte aligned, fewer bank conflicts

// The expert that owns tile `tile` and the index of its first tile, or -1 past the last tile.
__device__ void find_tile(const int* offsets, int experts, int tile, int* s_expert, int* s_first) {
    int lane = threadIdx.x;
    int before = 0;  // tiles of the experts already scanned
    for (int e0 = 0; e0 < experts; e0 += 32) {
        int e = e0 + lane;
        int t = e < experts ? (offsets[e + 1] - offsets[e] + BM - 1) / BM : 0;
        int incl = t;
        for (int d = 1; d < 32; d *= 2) {
            int v = __shfl_up_sync(0xffffffffu, incl, d);
            if (lane >= d) incl += v;
        }
        int end_tiles = before + incl;
        unsigned hit = __ballot_sync(0xffffffffu, e < experts && end_tiles > tile);
        if (hit) {
            if (lane == __ffs(hit) - 1) {
                *s_expert = e;
                *s_first = end_tiles - t;
            }
            return;
        }
        before = __shfl_sync(0xffffffffu, end_tiles, 31);
    }
}

__global__ void grouped_gemm_kernel(const __nv_bfloat16* a, const __nv_bfloat16* w, const int* offsets,
                                    __nv_bfloat16* c, int experts, int n, int k) {
    __shared__ __align__(32) __nv_bfloat16 As[BM][BK + PAD];
    __shared__ __align__(32) __nv_bfloat16 Bs[BN][BK + PAD];  // Bs[j][p] = w[e, col0 + j, k0 + p]
    __shared__ __align__(32) float Cs[BM][BN + 4];
    __shared__ int s_expert, s_first;
    int tile = blockIdx.x;
    if (threadIdx.x == 0) s_expert = -1;
    __syncthreads();
    if (threadIdx.x < 32) find_tile(offsets, experts, tile, &s_expert, &s_first);
    __syncthreads();
    int e = s_expert;
    if (e < 0) return;  // past the last tile: the whole block leaves
    int end = offsets[e + 1];
    int row0 = offsets[e] + (tile - s_first) * BM;
    int col0 = blockIdx.y * BN;
    int warp = threadIdx.x / 32, wm = warp / 2, wn = warp % 2;
    const __nv_bfloat16* w_e = w + (long long)e * n * k;
    const __nv_bfloat16 zero = __float2bfloat16(0.0f);

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < k; k0 += BK) {
        for (int i = threadIdx.x; i < BM * BK; i += blockDim.x) {
            int r = i / BK, p = i % BK;
            int row = row0 + r, kk = k0 + p;
            As[r][p] = (row < end && kk < k) ? a[(long long)row * k + kk] : zero;
        }
        for (int i = threadIdx.x; i < BN * BK; i += blockDim.x) {
            int j = i / BK, p = i % BK;
            int col = col0 + j, kk = k0 + p;
            Bs[j][p] = (col < n && kk < k) ? w_e[(long long)col * k + kk] : zero;
        }
        __syncthreads();
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb[2];
            for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(fa[i], &As[wm * 32 + i * 16][kk], BK + PAD);
            for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(fb[j], &Bs[wn * 32 + j * 16][kk], BK + PAD);
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();
    }
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            wmma::store_matrix_sync(&Cs[wm * 32 + i * 16][wn * 32 + j * 16], acc[i][j], BN + 4, wmma::mem_row_major);
    __syncthreads();
    for (int i = threadIdx.x; i < BM * BN; i += blockDim.x) {
        int r = i / BN, j = i % BN;
        int row = row0 + r, col = col0 + j;
        if (row < end && col < n) c[(long long)row * n + col] = __float2bfloat16(Cs[r][j]);
    }
}

extern "C" void solve(const __nv_bfloat16* a, const __nv_bfloat16* w, const int* expert_offsets, __nv_bfloat16* c,
                      int tokens, int experts, int active_experts, int n, int k) {
    // Each active expert adds at most one partial tile to tokens / BM full ones.
    int max_tiles = (tokens + BM - 1) / BM + active_experts;
    dim3 grid(max_tiles, (n + BN - 1) / BN);
    grouped_gemm_kernel<<<grid, 128>>>(a, w, expert_offsets, c, experts, n, k);
}
