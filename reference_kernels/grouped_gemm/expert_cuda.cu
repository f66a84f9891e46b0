// Expert CUDA kernel for the grouped GEMM of MoE experts (bf16 in, fp32 accumulate, bf16 out).
//
// One launch over a flat list of row tiles: a block takes BM rows of one expert by 128 output
// columns. Warp 0 finds the tile's expert from the offsets (tiles per expert, a shuffle scan 32
// experts at a time); experts without rows have no tiles. The tile height follows the routing
// (BM = 32, 64 or 128 from the average rows per active expert), so decode steps do not multiply
// rows of padding. Blocks are ordered in groups of 8 row tiles by every column block, so the
// blocks in flight share their a and w tiles in L2.
//
// The a and w slabs (BM x 32 and 128 x 32) are double-buffered in shared memory: cp.async
// copies of 16 bytes fetch the next slab while the tensor cores (bf16 WMMA, fp32 accumulators;
// 8 warps as 2 x 4, each BM/2 x 32) work on this one. When k is not a multiple of 8 the rows are
// not 16-byte aligned and the slabs are loaded element by element instead.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define BN 128
#define BK 32
#define LDS (BK + 8)  // shared row stride: 80 bytes keeps fragment and cp.async addresses aligned
#define GROUP 8
#define THREADS 256
#define STAGE_LD 20  // per-warp epilogue staging, floats per row

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, bool pred) {
    unsigned dst = (unsigned)__cvta_generic_to_shared(smem);
    int bytes = pred ? 16 : 0;  // 0: nothing read, the 16 bytes are zero-filled
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
__device__ __forceinline__ void cp_async_wait_one() { asm volatile("cp.async.wait_group 1;\n" ::); }

template <int BM>
__device__ void find_tile(const int* offsets, int experts, int tile, int* s_expert, int* s_first) {
    int lane = threadIdx.x;
    int before = 0;
    for (int e0 = 0; e0 < experts; e0 += 32) {
        int e = e0 + lane;
        int t = e < experts ? (offsets[e + 1] - offsets[e] + BM - 1) / BM : 0;
        int incl = t;
#pragma unroll
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

// One slab (rows x BK) of a row-major [*, k] matrix into shared memory, rows past `limit` and
// columns past k as zeros.
template <int ROWS>
__device__ __forceinline__ void load_slab(__nv_bfloat16* dst, const __nv_bfloat16* src, int first_row, int limit,
                                          int k, int k0, bool aligned) {
    if (aligned) {
        for (int i = threadIdx.x; i < ROWS * (BK / 8); i += THREADS) {
            int r = i / (BK / 8), p = (i % (BK / 8)) * 8;
            int row = first_row + r;
            bool ok = row < limit && k0 + p < k;  // k % 8 == 0: a chunk is wholly in or out
            const __nv_bfloat16* from = ok ? src + (long long)row * k + k0 + p : src;
            cp_async16(dst + r * LDS + p, from, ok);
        }
    } else {
        const __nv_bfloat16 zero = __float2bfloat16(0.0f);
        for (int i = threadIdx.x; i < ROWS * BK; i += THREADS) {
            int r = i / BK, p = i % BK;
            int row = first_row + r;
            dst[r * LDS + p] = (row < limit && k0 + p < k) ? src[(long long)row * k + k0 + p] : zero;
        }
    }
}

template <int BM>
__global__ void __launch_bounds__(THREADS) grouped_gemm_kernel(const __nv_bfloat16* a, const __nv_bfloat16* w,
                                                               const int* offsets, __nv_bfloat16* c, int experts,
                                                               int n, int k, int max_tiles) {
    constexpr int FM = BM / 32;  // 16-row fragments per warp (a warp covers BM / 2 rows)
    constexpr int A_ELEMS = BM * LDS, B_ELEMS = BN * LDS;
    __shared__ __align__(128) __nv_bfloat16 smem[2 * (A_ELEMS + B_ELEMS)];
    __shared__ int s_expert, s_first;

    int col_blocks = (n + BN - 1) / BN;
    int in_group = GROUP * col_blocks;
    int first = (blockIdx.x / in_group) * GROUP;
    int size = min(max_tiles - first, GROUP);
    int tile = first + (blockIdx.x % in_group) % size;
    int col0 = ((blockIdx.x % in_group) / size) * BN;

    if (threadIdx.x == 0) s_expert = -1;
    __syncthreads();
    if (threadIdx.x < 32) find_tile<BM>(offsets, experts, tile, &s_expert, &s_first);
    __syncthreads();
    int e = s_expert;
    if (e < 0) return;  // past the last tile: the whole block leaves
    int end = offsets[e + 1];
    int row0 = offsets[e] + (tile - s_first) * BM;
    const __nv_bfloat16* w_e = w + (long long)e * n * k;
    bool aligned = k % 8 == 0;

    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int wm = warp / 4, wn = warp % 4;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][2];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    int slabs = (k + BK - 1) / BK;
    load_slab<BM>(smem, a, row0, end, k, 0, aligned);
    load_slab<BN>(smem + A_ELEMS, w_e, col0, n, k, 0, aligned);
    cp_async_commit();
    for (int s = 0; s < slabs; ++s) {
        __nv_bfloat16* As = smem + (s & 1) * (A_ELEMS + B_ELEMS);
        __nv_bfloat16* Bs = As + A_ELEMS;
        if (s + 1 < slabs) {
            __nv_bfloat16* next = smem + ((s + 1) & 1) * (A_ELEMS + B_ELEMS);
            load_slab<BM>(next, a, row0, end, k, (s + 1) * BK, aligned);
            load_slab<BN>(next + A_ELEMS, w_e, col0, n, k, (s + 1) * BK, aligned);
        }
        cp_async_commit();  // possibly empty: the wait below then always leaves one group pending
        cp_async_wait_one();
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa[FM];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb[2];
#pragma unroll
            for (int i = 0; i < FM; ++i) wmma::load_matrix_sync(fa[i], As + (wm * (BM / 2) + i * 16) * LDS + kk, LDS);
#pragma unroll
            for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(fb[j], Bs + (wn * 32 + j * 16) * LDS + kk, LDS);
#pragma unroll
            for (int i = 0; i < FM; ++i)
#pragma unroll
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();  // everyone is done with this buffer before it is refilled
    }

    // Epilogue: each warp stages one 16 x 16 fragment at a time in its own corner of the (now
    // idle) slab buffers, then writes it as bf16 with the row and column bounds.
    float* stage = reinterpret_cast<float*>(smem) + warp * 16 * STAGE_LD;
#pragma unroll
    for (int i = 0; i < FM; ++i) {
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            wmma::store_matrix_sync(stage, acc[i][j], STAGE_LD, wmma::mem_row_major);
            __syncwarp();
            int r0 = row0 + wm * (BM / 2) + i * 16, c0 = col0 + wn * 32 + j * 16;
            for (int t = lane; t < 256; t += 32) {
                int row = r0 + t / 16, col = c0 + t % 16;
                if (row < end && col < n) c[(long long)row * n + col] = __float2bfloat16(stage[(t / 16) * STAGE_LD + t % 16]);
            }
            __syncwarp();
        }
    }
}

template <int BM>
static void launch(const __nv_bfloat16* a, const __nv_bfloat16* w, const int* offsets, __nv_bfloat16* c, int tokens,
                   int experts, int active_experts, int n, int k) {
    int max_tiles = (tokens + BM - 1) / BM + active_experts;  // at most one partial tile per active expert
    long long blocks = (long long)max_tiles * ((n + BN - 1) / BN);
    grouped_gemm_kernel<BM><<<(unsigned)blocks, THREADS>>>(a, w, offsets, c, experts, n, k, max_tiles);
}

extern "C" void solve(const __nv_bfloat16* a, const __nv_bfloat16* w, const int* expert_offsets, __nv_bfloat16* c,
                      int tokens, int experts, int active_experts, int n, int k) {
    int average = (tokens + active_experts - 1) / active_experts;
    if (average <= 32)
        launch<32>(a, w, expert_offsets, c, tokens, experts, active_experts, n, k);
    else if (average <= 96)
        launch<64>(a, w, expert_offsets, c, tokens, experts, active_experts, n, k);
    else
        launch<128>(a, w, expert_offsets, c, tokens, experts, active_experts, n, k);
}
