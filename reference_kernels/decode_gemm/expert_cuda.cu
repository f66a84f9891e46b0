// Expert CUDA solution for the decode GEMM c = a @ w^T (obeys the submission contract).
//
// The weight w [n, k] is read exactly once, as 16-byte streamed loads straight into tensor-core
// fragments; the activations a [m, k] (m <= 64, at most 3.5 MiB) are re-read by every block from
// L1/L2. Everything is arranged around that:
//
// * mma.sync m16n8k16 (bf16 in, fp32 accumulate) with the roles swapped: the 16-row operand is
//   16 weight rows (output features), the 8-column operand is 8 tokens, so C^T = W A^T. m = 1
//   wastes 7 of 8 columns instead of 15 of 16 rows, and no tile of w is ever padded.
// * Fragments are loaded from global memory without shared memory. A dot product may add its k
//   terms in any order, so k is permuted inside each 32-wide step: lane (g = lane / 4, t = lane % 4)
//   loads 8 consecutive elements (16 bytes) of weight rows g and g + 8 and of token g, at
//   k0 + 8t; for the k-half h of the step, the logical k index 2t + e of the fragment is physical
//   k0 + 8t + 4h + e, and 2t + 8 + e is k0 + 8t + 4h + 2 + e (e = 0, 1). Both operands use the
//   same map, so the four quads of a row read 64 contiguous bytes per load instruction and every
//   physical k of the step is used exactly once.
// * Block: 4 warps, 32 weight rows each (two m16 tiles): 128 output features. The grid's second
//   dimension splits k (split-K) so that even n = 2048 gives several blocks per SM; each block
//   writes its fp32 partial [m, 128] to a workspace and a second kernel adds the slices in order
//   and rounds once to bf16 (one slice: written directly). Partials never go through bf16.
// * Loads of the next 32-wide step are issued before the current step's MMAs (register double
//   buffer); with m <= 16 (one or two token tiles) a block holds ~100 registers per thread, so
//   4-5 blocks per SM keep 40-80 KB of weight reads in flight per SM.
//
// Requirements of the fast path: k % 8 == 0 and 16-byte aligned a and w (every row then starts on
// a 16-byte boundary). Other shapes take a plain warp-per-feature kernel. m > 64 (never asked) is
// handled by the grid's third dimension, 64 tokens at a time.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace {

constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;
constexpr int kRowsPerWarp = 32;
constexpr int kBlockRows = kWarps * kRowsPerWarp;  // output features per block
constexpr int kStep = 32;                          // k per step (one 16-byte load per lane and row)
constexpr int kMaxTokens = 64;                     // tokens per block (grid.z walks more)

__device__ __forceinline__ uint4 load_stream(const __nv_bfloat16* p) {
    uint4 v;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}

__device__ __forceinline__ uint4 load_cached(const __nv_bfloat16* p) {
    return __ldg(reinterpret_cast<const uint4*>(p));
}

__device__ __forceinline__ uint32_t word(const uint4& v, int i) {
    return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

__device__ __forceinline__ void mma_bf16(float (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                         uint32_t b0, uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// NT token tiles of 8 (m <= 8 * NT). Block (x, y, z): features [128 x, 128 x + 128), k slice y,
// tokens [64 z, 64 z + 64). out is the fp32 workspace [splits, m, n] or, with one slice, null and
// c is written directly.
template <int NT>
__global__ void __launch_bounds__(kThreads) decode_gemm_mma(const __nv_bfloat16* __restrict__ a,
                                                            const __nv_bfloat16* __restrict__ w,
                                                            float* __restrict__ out, __nv_bfloat16* __restrict__ c,
                                                            int m, int n, int k, int k_per_split) {
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    const int g = lane / 4;
    const int t = lane % 4;
    const int token_base = blockIdx.z * kMaxTokens;
    const int row_base = blockIdx.x * kBlockRows + warp * kRowsPerWarp;
    const int k_begin = blockIdx.y * k_per_split;
    const int k_end = min(k, k_begin + k_per_split);

    // Rows this lane loads: tile i, half r -> feature row_base + 16 i + 8 r + g.
    const __nv_bfloat16* wrow[2][2];
    bool wlive[2][2];
#pragma unroll
    for (int i = 0; i < 2; ++i) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            int row = row_base + 16 * i + 8 * r + g;
            wlive[i][r] = row < n;
            wrow[i][r] = w + (long long)(wlive[i][r] ? row : 0) * k + 8 * t;
        }
    }
    const __nv_bfloat16* arow[NT];
    bool alive[NT];
#pragma unroll
    for (int j = 0; j < NT; ++j) {
        int token = token_base + 8 * j + g;
        alive[j] = token < m;
        arow[j] = a + (long long)(alive[j] ? token : 0) * k + 8 * t;
    }

    float acc[2][NT][4];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

    const uint4 zero = make_uint4(0u, 0u, 0u, 0u);
    uint4 wcur[2][2], acur[NT];
    // k_end is a multiple of 8 (k % 8 == 0 and k_per_split % 32 == 0): a lane's 8 elements are
    // all inside the slice or all outside it.
    auto load_step = [&](int k0, uint4 (&wv)[2][2], uint4 (&av)[NT]) {
        bool inside = k0 + 8 * t < k_end;
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
            for (int r = 0; r < 2; ++r) wv[i][r] = (inside && wlive[i][r]) ? load_stream(wrow[i][r] + k0) : zero;
#pragma unroll
        for (int j = 0; j < NT; ++j) av[j] = (inside && alive[j]) ? load_cached(arow[j] + k0) : zero;
    };

    load_step(k_begin, wcur, acur);
    for (int k0 = k_begin; k0 < k_end; k0 += kStep) {
        uint4 wnext[2][2], anext[NT];
        if (k0 + kStep < k_end) {
            load_step(k0 + kStep, wnext, anext);
        } else {
#pragma unroll
            for (int i = 0; i < 2; ++i)
#pragma unroll
                for (int r = 0; r < 2; ++r) wnext[i][r] = zero;
#pragma unroll
            for (int j = 0; j < NT; ++j) anext[j] = zero;
        }
#pragma unroll
        for (int h = 0; h < 2; ++h) {
#pragma unroll
            for (int i = 0; i < 2; ++i) {
                uint32_t a0 = word(wcur[i][0], 2 * h), a1 = word(wcur[i][1], 2 * h);
                uint32_t a2 = word(wcur[i][0], 2 * h + 1), a3 = word(wcur[i][1], 2 * h + 1);
#pragma unroll
                for (int j = 0; j < NT; ++j) {
                    mma_bf16(acc[i][j], a0, a1, a2, a3, word(acur[j], 2 * h), word(acur[j], 2 * h + 1));
                }
            }
        }
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
            for (int r = 0; r < 2; ++r) wcur[i][r] = wnext[i][r];
#pragma unroll
        for (int j = 0; j < NT; ++j) acur[j] = anext[j];
    }

    // acc[i][j]: e = 0, 1 -> feature row_base + 16 i + g, tokens 8 j + 2 t + e;
    //            e = 2, 3 -> feature row_base + 16 i + g + 8, the same tokens.
    float* slice = out == nullptr ? nullptr : out + (long long)blockIdx.y * m * n;
#pragma unroll
    for (int i = 0; i < 2; ++i) {
#pragma unroll
        for (int j = 0; j < NT; ++j) {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                int feature = row_base + 16 * i + g + (e >= 2 ? 8 : 0);
                int token = token_base + 8 * j + 2 * t + (e & 1);
                if (feature < n && token < m) {
                    long long at = (long long)token * n + feature;
                    if (slice != nullptr) {
                        slice[at] = acc[i][j][e];
                    } else {
                        c[at] = __float2bfloat16(acc[i][j][e]);
                    }
                }
            }
        }
    }
}

// c = bf16(sum of the slices, in slice order).
__global__ void add_slices(const float* __restrict__ part, __nv_bfloat16* __restrict__ c, long long total,
                           int splits) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;
    float s = 0.0f;
    for (int p = 0; p < splits; ++p) s += part[p * total + i];
    c[i] = __float2bfloat16(s);
}

// Any k and alignment: one warp per (feature, group of 8 tokens), lanes stride over k.
__global__ void decode_gemm_plain(const __nv_bfloat16* a, const __nv_bfloat16* w, __nv_bfloat16* c, int m, int n,
                                  int k) {
    int feature = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    int t0 = blockIdx.y * 8;
    if (feature >= n) return;
    const __nv_bfloat16* wr = w + (long long)feature * k;
    float s[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) s[i] = 0.0f;
    for (int p = lane; p < k; p += 32) {
        float wv = __bfloat162float(wr[p]);
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            if (t0 + i < m) s[i] = fmaf(__bfloat162float(a[(long long)(t0 + i) * k + p]), wv, s[i]);
        }
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        float v = s[i];
        for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
        if (lane == 0 && t0 + i < m) c[(long long)(t0 + i) * n + feature] = __float2bfloat16(v);
    }
}

int sm_count() {
    static int count = 0;
    if (count == 0) {
        int device = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);
        if (count <= 0) count = 132;
    }
    return count;
}

float* workspace(size_t floats) {
    static float* buffer = nullptr;
    static size_t capacity = 0;
    if (floats > capacity) {
        if (buffer != nullptr) cudaFree(buffer);
        buffer = nullptr;
        capacity = 0;
        if (cudaMalloc(&buffer, floats * sizeof(float)) != cudaSuccess) return nullptr;
        capacity = floats;
    }
    return buffer;
}

template <int NT>
void launch(const __nv_bfloat16* a, const __nv_bfloat16* w, __nv_bfloat16* c, int m, int n, int k) {
    const int feature_blocks = (n + kBlockRows - 1) / kBlockRows;
    const int token_blocks = (m + kMaxTokens - 1) / kMaxTokens;
    // About four blocks per SM in all, each slice at least 256 deep.
    int splits = (4 * sm_count() + feature_blocks * token_blocks - 1) / (feature_blocks * token_blocks);
    splits = max(1, min(splits, k / 256));
    int k_per_split = (k + splits - 1) / splits;
    k_per_split = (k_per_split + kStep - 1) / kStep * kStep;
    splits = (k + k_per_split - 1) / k_per_split;
    float* part = nullptr;
    if (splits > 1) {
        part = workspace((size_t)splits * m * n);
        if (part == nullptr) {  // no workspace: one slice, written directly
            splits = 1;
            k_per_split = (k + kStep - 1) / kStep * kStep;
        }
    }
    dim3 grid(feature_blocks, splits, token_blocks);
    decode_gemm_mma<NT><<<grid, kThreads>>>(a, w, part, c, m, n, k, k_per_split);
    if (part != nullptr) {
        long long total = (long long)m * n;
        add_slices<<<(unsigned)((total + 255) / 256), 256>>>(part, c, total, splits);
    }
}

}  // namespace

extern "C" void solve(const __nv_bfloat16* a, const __nv_bfloat16* w, __nv_bfloat16* c, int m, int n, int k) {
    bool aligned = k % 8 == 0 && reinterpret_cast<uintptr_t>(a) % 16 == 0 && reinterpret_cast<uintptr_t>(w) % 16 == 0;
    if (!aligned) {
        dim3 grid((n + 7) / 8, (m + 7) / 8);
        decode_gemm_plain<<<grid, 256>>>(a, w, c, m, n, k);
        return;
    }
    if (m <= 8) {
        launch<1>(a, w, c, m, n, k);
    } else if (m <= 16) {
        launch<2>(a, w, c, m, n, k);
    } else if (m <= 32) {
        launch<4>(a, w, c, m, n, k);
    } else {
        launch<8>(a, w, c, m, n, k);
    }
}
