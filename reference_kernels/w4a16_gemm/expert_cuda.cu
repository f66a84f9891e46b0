// Expert CUDA solution for the W4A16 GEMM (obeys the submission contract).
//
// The packed weight is the large operand: each 32-bit word (eight 4-bit weights) is loaded once,
// straight into registers, unpacked there into the integers q - zero (exact in bf16) and fed to
// the tensor cores; nothing dequantized ever goes to memory.
//
// * mma.sync m16n8k16 (bf16 in, fp32 accumulate) with the GEMM's roles swapped, C^T = W A^T:
//   16 weight rows (output features) form the 16-row operand and 8 tokens the 8-column one, so a
//   decode step of one token wastes 7 of 8 columns, not 15 of 16 rows.
// * A dot product may take its k terms in any order, so k is permuted inside each 32-wide step
//   (four words of a row): lane (g = lane / 4, t = lane % 4) owns word t of weight rows g and
//   g + 8, i.e. physical k 8t .. 8t + 7, and the 16-byte piece a[token g, 8t .. 8t + 7]. For the
//   step's two MMAs h = 0, 1 the fragment's logical k pair (2t, 2t + 1) is physical 8t + 4h + 0, 1
//   and (2t + 8, 2t + 9) is 8t + 4h + 2, 3: nibbles 4h .. 4h + 3 of the lane's own word, and the
//   matching activations of its own 16-byte load. Both operands use the same map.
// * A group (128 k) is four steps: their products go to an fp32 partial that is multiplied by
//   the group's scale (one per output feature) and added to the accumulator once per group.
// * Block: 4 warps of 32 weight rows (two m16 tiles) each, 128 output features; grid.y splits k
//   into slices of whole groups (decode: about four blocks per SM) with fp32 partials added in
//   order by a second kernel; grid.z walks the tokens 8 * NT at a time (NT n8 tiles per warp, up
//   to 4: prefill takes 32 tokens a block and re-reads the weight from L2 once per block).
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace {

constexpr int kGroup = 128;
constexpr int kStep = 32;  // k per step: one word per lane and weight row
constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;
constexpr int kRowsPerWarp = 32;
constexpr int kBlockRows = kWarps * kRowsPerWarp;

__device__ __forceinline__ uint32_t load_word_stream(const int32_t* p) {
    uint32_t v;
    asm volatile("ld.global.nc.L1::no_allocate.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

// Two integers in [-15, 15] as a bf16 pair (exact), the first in the low half.
__device__ __forceinline__ uint32_t int_pair(int lo, int hi) {
    __nv_bfloat162 v = __floats2bfloat162_rn((float)lo, (float)hi);
    return *reinterpret_cast<uint32_t*>(&v);
}

__device__ __forceinline__ void mma_bf16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// out: the fp32 workspace [splits, m, n], or null (one slice: c written directly).
template <int NT>
__global__ void __launch_bounds__(kThreads) w4a16_mma(const __nv_bfloat16* __restrict__ a,
                                                      const int32_t* __restrict__ qweight,
                                                      const __nv_bfloat16* __restrict__ scales,
                                                      const uint8_t* __restrict__ zeros, float* __restrict__ out,
                                                      __nv_bfloat16* __restrict__ c, int m, int n, int k,
                                                      int groups_per_split) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;
    const int groups = k / kGroup;
    const int words = k / 8;
    const int row0 = blockIdx.x * kBlockRows + warp * kRowsPerWarp;
    const int token0 = blockIdx.z * 8 * NT;
    const int g_begin = blockIdx.y * groups_per_split;
    const int g_end = min(g_begin + groups_per_split, groups);

    // The four weight rows this lane reads (g, g + 8 of both m16 tiles), clamped in range: rows
    // past n compute garbage that is never stored.
    int rows[4];
#pragma unroll
    for (int r = 0; r < 4; ++r) rows[r] = min(row0 + 8 * r + g, n - 1);
    int tokens[NT];
#pragma unroll
    for (int j = 0; j < NT; ++j) tokens[j] = min(token0 + 8 * j + g, m - 1);

    float acc[2][NT][4];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

    for (int grp = g_begin; grp < g_end; ++grp) {
        int zero[4];
#pragma unroll
        for (int r = 0; r < 4; ++r) zero[r] = zeros[(long long)rows[r] * groups + grp];
        float part[2][NT][4];
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
            for (int j = 0; j < NT; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e) part[i][j][e] = 0.0f;
#pragma unroll
        for (int s = 0; s < kGroup / kStep; ++s) {
            const int word = grp * (kGroup / 8) + s * (kStep / 8) + t;
            uint32_t w[4];
#pragma unroll
            for (int r = 0; r < 4; ++r) w[r] = load_word_stream(qweight + (long long)rows[r] * words + word);
            uint4 act[NT];
#pragma unroll
            for (int j = 0; j < NT; ++j)
                act[j] = __ldg(reinterpret_cast<const uint4*>(a + (long long)tokens[j] * k + 8 * word));
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                uint32_t frag[2][4];
#pragma unroll
                for (int i = 0; i < 2; ++i) {
                    // rows g (register 0, 2) and g + 8 (1, 3) of m16 tile i; k pairs 4h + {0,1}, 4h + {2,3}
#pragma unroll
                    for (int half = 0; half < 2; ++half) {
                        const uint32_t word_bits = w[2 * i + half] >> (16 * h);
                        const int z = zero[2 * i + half];
                        frag[i][half] = int_pair((int)(word_bits & 0xF) - z, (int)((word_bits >> 4) & 0xF) - z);
                        frag[i][half + 2] =
                            int_pair((int)((word_bits >> 8) & 0xF) - z, (int)((word_bits >> 12) & 0xF) - z);
                    }
                }
#pragma unroll
                for (int j = 0; j < NT; ++j) {
                    const uint32_t b0 = h ? act[j].z : act[j].x;  // activations 8t + 4h + {0, 1}
                    const uint32_t b1 = h ? act[j].w : act[j].y;  // 8t + 4h + {2, 3}
#pragma unroll
                    for (int i = 0; i < 2; ++i) mma_bf16(part[i][j], frag[i], b0, b1);
                }
            }
        }
        // part[i][j]: registers 0, 1 are feature row g of tile i, registers 2, 3 row g + 8
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            const float s_lo = __bfloat162float(scales[(long long)rows[2 * i] * groups + grp]);
            const float s_hi = __bfloat162float(scales[(long long)rows[2 * i + 1] * groups + grp]);
#pragma unroll
            for (int j = 0; j < NT; ++j) {
                acc[i][j][0] = fmaf(part[i][j][0], s_lo, acc[i][j][0]);
                acc[i][j][1] = fmaf(part[i][j][1], s_lo, acc[i][j][1]);
                acc[i][j][2] = fmaf(part[i][j][2], s_hi, acc[i][j][2]);
                acc[i][j][3] = fmaf(part[i][j][3], s_hi, acc[i][j][3]);
            }
        }
    }

    // C^T fragment: register e holds feature row0 + 16 i + g + 8 (e / 2), token 8 j + 2 t + e % 2
#pragma unroll
    for (int i = 0; i < 2; ++i) {
#pragma unroll
        for (int j = 0; j < NT; ++j) {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const int feature = row0 + 16 * i + g + 8 * (e / 2);
                const int token = token0 + 8 * j + 2 * t + (e % 2);
                if (feature < n && token < m) {
                    const long long where = (long long)token * n + feature;
                    if (out != nullptr) {
                        out[(long long)blockIdx.y * m * n + where] = acc[i][j][e];
                    } else {
                        c[where] = __float2bfloat16(acc[i][j][e]);
                    }
                }
            }
        }
    }
}

__global__ void add_slices(const float* __restrict__ part, __nv_bfloat16* __restrict__ c, long long total, int splits) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;
    float sum = 0.0f;
    for (int s = 0; s < splits; ++s) sum += part[(long long)s * total + i];
    c[i] = __float2bfloat16(sum);
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
void launch(const __nv_bfloat16* a, const int32_t* qweight, const __nv_bfloat16* scales, const uint8_t* zeros,
            __nv_bfloat16* c, int m, int n, int k) {
    const int groups = k / kGroup;
    const int feature_blocks = (n + kBlockRows - 1) / kBlockRows;
    const int token_blocks = (m + 8 * NT - 1) / (8 * NT);
    // About four blocks per SM in all, each slice at least two groups deep.
    const int blocks = feature_blocks * token_blocks;
    int splits = max(1, min((4 * sm_count() + blocks - 1) / blocks, groups / 2));
    int groups_per_split = (groups + splits - 1) / splits;
    splits = (groups + groups_per_split - 1) / groups_per_split;
    float* part = nullptr;
    if (splits > 1) {
        part = workspace((size_t)splits * m * n);
        if (part == nullptr) {  // no workspace: one slice, written directly
            splits = 1;
            groups_per_split = groups;
        }
    }
    dim3 grid(feature_blocks, splits, token_blocks);
    w4a16_mma<NT><<<grid, kThreads>>>(a, qweight, scales, zeros, part, c, m, n, k, groups_per_split);
    if (part != nullptr) {
        long long total = (long long)m * n;
        add_slices<<<(unsigned)((total + 255) / 256), 256>>>(part, c, total, splits);
    }
}

}  // namespace

// All pointers are device pointers. Launch on the default stream; do not synchronize. k is a
// multiple of 128, so every row of a starts on a 16-byte boundary.
extern "C" void solve(const __nv_bfloat16* a, const int32_t* qweight, const __nv_bfloat16* scales,
                      const uint8_t* zeros, __nv_bfloat16* c, int m, int n, int k) {
    if (m <= 8) {
        launch<1>(a, qweight, scales, zeros, c, m, n, k);
    } else if (m <= 16) {
        launch<2>(a, qweight, scales, zeros, c, m, n, k);
    } else {
        launch<4>(a, qweight, scales, zeros, c, m, n, k);  // 8 n8 tiles would spill (255 registers)
    }
}
