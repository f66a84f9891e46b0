// Expert CUDA solution for the fused GEMM + bias + GELU on Hopper (sm_90a).
//
// The GEMM is the matmul expert (reference_kernels/matmul/expert_cuda.cu, TMA + wgmma,
// warp-specialized) unchanged; what is new is the epilogue of each of its three kernels: the
// fp32 accumulators get bias[col] added and go through the erf GELU in registers, then are
// rounded to bf16 and stored, so z never touches memory. erff is a few dozen instructions per
// output against 2k FLOPs of the product; in the persistent wgmma kernel it overlaps with the
// producer's TMA loads of the next tile.
//
// How it works (fast path, k and n multiples of 8, m >= 128, n >= 256, k >= 64):
//   - a persistent grid (one 384-thread CTA per SM) walks 128x256 output tiles in a grouped
//     order (8 tile-rows at a time) so that concurrently running CTAs share a and b in L2;
//   - warpgroup 0 is the producer: one thread issues TMA loads of 64-wide k-slices (a: one
//     128x64 box; b: four 64x64 boxes) into a 4-stage ring of 48 KiB stages, 128-byte swizzled,
//     with out-of-range rows/columns (m, n and k edges) zero-filled by the TMA unit itself;
//   - warpgroups 1 and 2 are consumers: each owns 64 rows of the tile and issues
//     wgmma.m64n256k16 (bf16 in, fp32 accumulators, 128 registers per thread) straight from
//     shared memory, keeping one wgmma group in flight while releasing the previous stage;
//   - full/empty mbarriers per stage hand the ring between producer and consumers (expect_tx
//     byte counts for the TMA side, 8 warp arrivals for the consumer side); setmaxnreg moves
//     registers from the producer (40) to the consumers (232). The kernel is built twice, with
//     and without setmaxnreg; the host takes the setmaxnreg one only if ptxas gave it exactly
//     168 registers (otherwise setmaxnreg.inc could wait forever on the CTA's register pool);
//   - the epilogue converts the fp32 accumulators to bf16 and stores them straight to global
//     memory (bounds-checked on edge tiles) while the producer already prefetches the next tile.
// Any other shape (tiny, k or n not a multiple of 8, misaligned pointers) takes the older
// WMMA/cp.async kernel, or a plain FMA kernel when rows are not 16-byte aligned.
//
// Operand layouts. a is row-major [m,k]: k is contiguous, i.e. "K-major", the layout wgmma
// expects by default for A (imm-trans-a = 0). b is row-major [k,n]: n is contiguous, i.e.
// "N-major" (MN-major); wgmma's default B is K-major, so B is read with imm-trans-b = 1, which
// is allowed for 16-bit types. Shared-memory tiles (all 1024-byte aligned, 128B swizzle):
//   A stage: 128 rows (m) x 128 bytes (64 k), row r at r*128; 8-row groups 1024 B apart.
//            descriptor: SBO = 1024 B (next 8 rows of m), LBO unused (set to 16 B), and the
//            k16 step inside the 128-byte swizzle row advances the start address by 32 B
//            (the hardware applies the XOR swizzle to the final address bits).
//   B stage: four 64x64 boxes, box j (n in [64j, 64j+64)) at j*8192; inside a box, row kk (k)
//            at kk*128 holds 64 consecutive n. MN-major SW128 canonical layout: LBO = 8192 B
//            (distance between 64-wide n blocks), SBO = 1024 B (distance between 8-row k
//            groups); the k16 step advances the start address by 16 rows = 2048 B.
// Descriptor bits: [0,14) start>>4, [16,30) LBO>>4, [32,46) SBO>>4, [49,52) base offset = 0
// (tiles 1024-aligned), [62,64) swizzle = 1 (128B).
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>
#include <stdint.h>

using namespace nvcuda;

namespace {

// GELU, erf form: z * Phi(z).
__device__ __forceinline__ float gelu(float z) { return 0.5f * z * (1.0f + erff(z * 0.70710678118654752f)); }

__device__ __forceinline__ __nv_bfloat162 bias_gelu2(float z0, float z1, float2 bias) {
    return __floats2bfloat162_rn(gelu(z0 + bias.x), gelu(z1 + bias.y));
}

// =============================================================================================
// Fast path: TMA + wgmma.
// =============================================================================================
constexpr int WG_BM = 128, WG_BN = 256, WG_BK = 64, WG_STAGES = 4, WG_THREADS = 384, WG_GROUP_M = 8;
constexpr int WG_A_BYTES = WG_BM * WG_BK * 2;                    // 16 KiB
constexpr int WG_B_BOX_BYTES = 64 * WG_BK * 2;                   // 8 KiB: one 64(n) x 64(k) box
constexpr int WG_B_BYTES = WG_BN * WG_BK * 2;                    // 32 KiB
constexpr int WG_STAGE_BYTES = WG_A_BYTES + WG_B_BYTES;          // 48 KiB
constexpr int WG_SMEM_BYTES = 1024 /* alignment slack */ + WG_STAGES * WG_STAGE_BYTES + 2 * WG_STAGES * 8;
constexpr int WG_PRODUCER_REGS = 40, WG_CONSUMER_REGS = 232;      // 128*40 + 256*232 <= 384*168

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// Wait until the phase with the given parity has completed. A freshly initialised barrier is
// in phase 0; waiting for parity 1 on it returns at once (the "previous" phase counts as done),
// which is what lets the producer run through the empty ring on its first pass.
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
    uint32_t done;
    do {
        asm volatile(
            "{\n"
            ".reg .pred p;\n"
            "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
            "selp.u32 %0, 1, 0, p;\n"
            "}\n"
            : "=r"(done)
            : "r"(bar), "r"(parity)
            : "memory");
    } while (!done);
}

// 2-D TMA load of one box into shared memory; completion is signalled on `bar` as transaction
// bytes. c0 is the innermost (contiguous) coordinate, c1 the row coordinate, both in elements.
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0, int c1) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(
            dst),
        "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1)
        : "memory");
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// Shared-memory matrix descriptor, 128-byte swizzle.
__device__ __forceinline__ uint64_t make_desc(uint32_t saddr, uint32_t lbo_bytes, uint32_t sbo_bytes) {
    return static_cast<uint64_t>((saddr & 0x3FFFF) >> 4) | (static_cast<uint64_t>(lbo_bytes >> 4) << 16) |
           (static_cast<uint64_t>(sbo_bytes >> 4) << 32) | (1ull << 62);
}

// d[0..127] += A(64x16, K-major, desc_a) * B(16x256, N-major, desc_b).
// Operands after the descriptors: scale-d (predicate, always 1: the accumulators are zeroed
// in registers before a tile), imm-scale-a = 1, imm-scale-b = 1, imm-trans-a = 0 (A K-major),
// imm-trans-b = 1 (B N-major).
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
        "{"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
        "%128, %129, p, 1, 1, 0, 1;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
      "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
      "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
      "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
      "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
      "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
      "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
      "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
      "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
      "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
      "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
      "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
      "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(desc_a), "l"(desc_b), "r"(1));
}

// Keeps the compiler from moving accesses of the accumulators across wgmma fences/waits.
__device__ __forceinline__ void fence_acc(float (&d)[128]) {
#pragma unroll
    for (int i = 0; i < 128; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

struct TileCoord {
    int m0, n0;
};

// Grouped tile order: WG_GROUP_M tile-rows at a time, walked column by column.
__device__ __forceinline__ TileCoord tile_coord(int tile, int tiles_m, int tiles_n) {
    const int per_group = WG_GROUP_M * tiles_n;
    const int group = tile / per_group;
    const int first_m = group * WG_GROUP_M;
    const int rows = min(tiles_m - first_m, WG_GROUP_M);
    const int in_group = tile - group * per_group;
    TileCoord t;
    t.m0 = (first_m + in_group % rows) * WG_BM;
    t.n0 = (in_group / rows) * WG_BN;
    return t;
}

template <bool kSetMaxNReg>
__global__ void __launch_bounds__(WG_THREADS, 1)
    gemm_wgmma(const __grid_constant__ CUtensorMap tmap_a, const __grid_constant__ CUtensorMap tmap_b,
               const __nv_bfloat16* __restrict__ bias, __nv_bfloat16* __restrict__ c, int m, int n, int k) {
    extern __shared__ __align__(128) unsigned char wg_smem[];
    // Stage s: A at tiles + s*STAGE, B right after it (both multiples of 1024 from `tiles`).
    const uint32_t tiles = (smem_addr(wg_smem) + 1023u) & ~1023u;
    const uint32_t bars = tiles + WG_STAGES * WG_STAGE_BYTES;  // full[s] at bars + 8s, empty[s] after
    const uint32_t full0 = bars, empty0 = bars + 8 * WG_STAGES;

    const int warpgroup = threadIdx.x / 128;
    const int lane = threadIdx.x & 31;

    if (threadIdx.x == 0) {
        for (int s = 0; s < WG_STAGES; ++s) {
            mbar_init(full0 + 8 * s, 1);      // the producer's arrive.expect_tx (+ TMA bytes)
            mbar_init(empty0 + 8 * s, 8);     // lane 0 of each of the 8 consumer warps
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    }
    __syncthreads();

    const int tiles_m = (m + WG_BM - 1) / WG_BM;
    const int tiles_n = (n + WG_BN - 1) / WG_BN;
    const int total = tiles_m * tiles_n;
    const int k_tiles = (k + WG_BK - 1) / WG_BK;

    if (warpgroup == 0) {
        // ---------------------------------------------------------------- producer
        if constexpr (kSetMaxNReg) asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(WG_PRODUCER_REGS));
        if (threadIdx.x == 0) {
            asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(&tmap_a)) : "memory");
            asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(&tmap_b)) : "memory");
            uint32_t it = 0;  // global k-slice counter, identical sequence in the consumers
            for (int tile = blockIdx.x; tile < total; tile += gridDim.x) {
                const TileCoord tc = tile_coord(tile, tiles_m, tiles_n);
                const int b_boxes = min(WG_BN / 64, (n - tc.n0 + 63) / 64);  // boxes with a column < n
                for (int kt = 0; kt < k_tiles; ++kt, ++it) {
                    const uint32_t s = it % WG_STAGES;
                    const uint32_t phase = (it / WG_STAGES) & 1;
                    mbar_wait(empty0 + 8 * s, phase ^ 1);  // consumers released this slot
                    const uint32_t full = full0 + 8 * s;
                    // A partly out-of-range box still delivers (and counts) all its bytes, the
                    // missing elements as zeros. A b box wholly right of column n is not loaded at
                    // all: its stale shared-memory contents only reach output columns >= n, which
                    // are never stored (column j of A*B depends on column j of B alone).
                    mbar_arrive_expect_tx(full, WG_A_BYTES + b_boxes * WG_B_BOX_BYTES);
                    const uint32_t sa = tiles + s * WG_STAGE_BYTES;
                    const uint32_t sb = sa + WG_A_BYTES;
                    tma_load_2d(sa, &tmap_a, full, kt * WG_BK, tc.m0);
#pragma unroll
                    for (int j = 0; j < WG_BN / 64; ++j)
                        if (j < b_boxes)
                            tma_load_2d(sb + j * WG_B_BOX_BYTES, &tmap_b, full, tc.n0 + 64 * j, kt * WG_BK);
                }
            }
        }
    } else {
        // ---------------------------------------------------------------- consumers
        if constexpr (kSetMaxNReg) asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(WG_CONSUMER_REGS));
        const int cw = warpgroup - 1;                 // which 64-row half of the tile
        const int warp_in_wg = (threadIdx.x / 32) & 3;
        float acc[128];
        uint32_t it = 0;
        for (int tile = blockIdx.x; tile < total; tile += gridDim.x) {
            const TileCoord tc = tile_coord(tile, tiles_m, tiles_n);
#pragma unroll
            for (int i = 0; i < 128; ++i) acc[i] = 0.0f;
            fence_acc(acc);
            uint32_t prev_s = 0;
            for (int kt = 0; kt < k_tiles; ++kt, ++it) {
                const uint32_t s = it % WG_STAGES;
                const uint32_t phase = (it / WG_STAGES) & 1;
                mbar_wait(full0 + 8 * s, phase);  // TMA bytes of this stage have landed
                __syncwarp();                     // wgmma.*.sync.aligned wants converged warps
                const uint32_t sa = tiles + s * WG_STAGE_BYTES + cw * (64 * 128);
                const uint32_t sb = tiles + s * WG_STAGE_BYTES + WG_A_BYTES;
                const uint64_t da = make_desc(sa, 16, 1024);
                const uint64_t db = make_desc(sb, WG_B_BOX_BYTES, 1024);
                wgmma_fence();
#pragma unroll
                for (int kk = 0; kk < WG_BK / 16; ++kk)
                    // A: +32 bytes per k16 inside the swizzled row; B: +16 rows of 128 bytes.
                    wgmma_m64n256k16(acc, da + static_cast<uint64_t>((kk * 32) >> 4),
                                     db + static_cast<uint64_t>((kk * 16 * 128) >> 4));
                wgmma_commit();
                wgmma_wait<1>();  // the previous k-slice's group is complete: release its stage
                if (kt > 0 && lane == 0) mbar_arrive(empty0 + 8 * prev_s);
                prev_s = s;
            }
            wgmma_wait<0>();
            fence_acc(acc);
            if (lane == 0) mbar_arrive(empty0 + 8 * prev_s);

            // Epilogue. wgmma D fragment (m64nN, f32): thread t of the warpgroup holds, for
            // j in [0, N/8): d[4j+0..1] at (row 16*warp + lane/4,     cols 8j + 2*(lane%4) + 0..1)
            //                d[4j+2..3] at (row 16*warp + lane/4 + 8, same cols).
            // Both rows share the two columns, so one bf16x2 bias load serves four outputs.
            const int row = tc.m0 + cw * 64 + warp_in_wg * 16 + (lane >> 2);
            const int col = tc.n0 + 2 * (lane & 3);
            __nv_bfloat16* c0 = c + static_cast<size_t>(row) * n + col;
            __nv_bfloat16* c8 = c0 + static_cast<size_t>(8) * n;
            if (tc.m0 + WG_BM <= m && tc.n0 + WG_BN <= n) {
#pragma unroll
                for (int j = 0; j < 32; ++j) {
                    const float2 bj = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(bias + col + 8 * j));
                    *reinterpret_cast<__nv_bfloat162*>(c0 + 8 * j) = bias_gelu2(acc[4 * j], acc[4 * j + 1], bj);
                    *reinterpret_cast<__nv_bfloat162*>(c8 + 8 * j) = bias_gelu2(acc[4 * j + 2], acc[4 * j + 3], bj);
                }
            } else {
                // n is even here and col is even, so col < n implies col + 1 < n.
                const bool r0 = row < m, r8 = row + 8 < m;
#pragma unroll
                for (int j = 0; j < 32; ++j) {
                    if (col + 8 * j < n) {
                        const float2 bj =
                            __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(bias + col + 8 * j));
                        if (r0)
                            *reinterpret_cast<__nv_bfloat162*>(c0 + 8 * j) = bias_gelu2(acc[4 * j], acc[4 * j + 1], bj);
                        if (r8)
                            *reinterpret_cast<__nv_bfloat162*>(c8 + 8 * j) =
                                bias_gelu2(acc[4 * j + 2], acc[4 * j + 3], bj);
                    }
                }
            }
        }
    }
}

// =============================================================================================
// Fallback 1: WMMA (mma.sync) with a 4-stage cp.async pipeline; any m, n, k with k and n
// multiples of 8 (16-byte aligned rows). The matmul expert's kernel, with the bias + GELU epilogue.
// =============================================================================================
constexpr int BM = 128, BN = 128, BK = 32, STAGES = 4, THREADS = 256, GROUP_M = 8;
constexpr int A_LD = BK + 8;   // bf16 elements per padded row of the a slice
constexpr int B_LD = BN + 8;   // bf16 elements per padded row of the b slice
constexpr int A_STAGE = BM * A_LD;
constexpr int B_STAGE = BK * B_LD;
constexpr int SMEM_BYTES = STAGES * (A_STAGE + B_STAGE) * 2;
constexpr int WARP_M = 64, WARP_N = 32;
constexpr int FRAG_M = WARP_M / 16, FRAG_N = WARP_N / 16;

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, bool valid) {
    unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    int src_bytes = valid ? 16 : 0;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

// Copy k-slice `kt` of a (BM x BK) and b (BK x BN) into one pipeline stage.
__device__ __forceinline__ void load_stage(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ b,
                                           __nv_bfloat16* sa, __nv_bfloat16* sb, int m, int n, int k, int row0,
                                           int col0, int kt) {
    const int t = threadIdx.x;
    const int k0 = kt * BK;
    // a: 128 rows x 4 chunks of 8 elements = 512 chunks, two per thread.
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        int chunk = t + i * THREADS;
        int r = chunk >> 2, c = (chunk & 3) * 8;
        int gr = row0 + r, gc = k0 + c;
        bool ok = gr < m && gc < k;
        const __nv_bfloat16* src = ok ? a + (long long)gr * k + gc : a;
        cp_async16(sa + r * A_LD + c, src, ok);
    }
    // b: 32 rows x 16 chunks of 8 elements = 512 chunks, two per thread.
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        int chunk = t + i * THREADS;
        int r = chunk >> 4, c = (chunk & 15) * 8;
        int gr = k0 + r, gc = col0 + c;
        bool ok = gr < k && gc < n;
        const __nv_bfloat16* src = ok ? b + (long long)gr * n + gc : b;
        cp_async16(sb + r * B_LD + c, src, ok);
    }
}

__global__ void __launch_bounds__(THREADS) gemm_wmma(const __nv_bfloat16* __restrict__ a,
                                                     const __nv_bfloat16* __restrict__ b,
                                                     const __nv_bfloat16* __restrict__ bias, __nv_bfloat16* __restrict__ c,
                                                     int m, int n, int k) {
    extern __shared__ __align__(128) unsigned char smem_raw[];
    __nv_bfloat16* smem = reinterpret_cast<__nv_bfloat16*>(smem_raw);
    __nv_bfloat16* sa = smem;
    __nv_bfloat16* sb = smem + STAGES * A_STAGE;

    // Grouped tile order.
    const int tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
    const int pid = blockIdx.x;
    const int per_group = GROUP_M * tiles_n;
    const int first_m = (pid / per_group) * GROUP_M;
    const int group_rows = min(tiles_m - first_m, GROUP_M);
    const int tile_m = first_m + (pid % per_group) % group_rows;
    const int tile_n = (pid % per_group) / group_rows;
    const int row0 = tile_m * BM, col0 = tile_n * BN;

    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int warp_row = (warp >> 2) * WARP_M;  // 0 or 64
    const int warp_col = (warp & 3) * WARP_N;   // 0, 32, 64, 96

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FRAG_M][FRAG_N];
#pragma unroll
    for (int i = 0; i < FRAG_M; ++i)
#pragma unroll
        for (int j = 0; j < FRAG_N; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    const int k_tiles = (k + BK - 1) / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < k_tiles) load_stage(a, b, sa + s * A_STAGE, sb + s * B_STAGE, m, n, k, row0, col0, s);
        cp_async_commit();
    }

    for (int kt = 0; kt < k_tiles; ++kt) {
        cp_async_wait<STAGES - 2>();  // slice kt has landed (for this thread's copies)
        __syncthreads();              // ... and for everyone's; slice kt-1 is no longer read
        int next = kt + STAGES - 1;
        if (next < k_tiles) {
            int s = next % STAGES;
            load_stage(a, b, sa + s * A_STAGE, sb + s * B_STAGE, m, n, k, row0, col0, next);
        }
        cp_async_commit();

        const __nv_bfloat16* ta = sa + (kt % STAGES) * A_STAGE;
        const __nv_bfloat16* tb = sb + (kt % STAGES) * B_STAGE;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa[FRAG_M];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb[FRAG_N];
#pragma unroll
            for (int i = 0; i < FRAG_M; ++i) wmma::load_matrix_sync(fa[i], ta + (warp_row + i * 16) * A_LD + kk, A_LD);
#pragma unroll
            for (int j = 0; j < FRAG_N; ++j) wmma::load_matrix_sync(fb[j], tb + kk * B_LD + warp_col + j * 16, B_LD);
#pragma unroll
            for (int i = 0; i < FRAG_M; ++i)
#pragma unroll
                for (int j = 0; j < FRAG_N; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
    }
    cp_async_wait<0>();
    __syncthreads();  // all warps are done with the pipeline buffers: reuse them as scratch

    float* scratch = reinterpret_cast<float*>(smem_raw) + warp * 16 * 16;
    const bool vec_ok = (n % 8) == 0;
#pragma unroll
    for (int i = 0; i < FRAG_M; ++i) {
#pragma unroll
        for (int j = 0; j < FRAG_N; ++j) {
            wmma::store_matrix_sync(scratch, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            int r = lane >> 1, cpart = (lane & 1) * 8;
            int gr = row0 + warp_row + i * 16 + r;
            int gc = col0 + warp_col + j * 16 + cpart;
            const float* src = scratch + r * 16 + cpart;
            if (gr < m) {
                if (vec_ok && gc + 8 <= n) {
                    float2 b01 = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(bias + gc));
                    float2 b23 = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(bias + gc + 2));
                    float2 b45 = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(bias + gc + 4));
                    float2 b67 = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(bias + gc + 6));
                    __nv_bfloat162 p0 = bias_gelu2(src[0], src[1], b01);
                    __nv_bfloat162 p1 = bias_gelu2(src[2], src[3], b23);
                    __nv_bfloat162 p2 = bias_gelu2(src[4], src[5], b45);
                    __nv_bfloat162 p3 = bias_gelu2(src[6], src[7], b67);
                    uint4 packed;
                    packed.x = *reinterpret_cast<unsigned*>(&p0);
                    packed.y = *reinterpret_cast<unsigned*>(&p1);
                    packed.z = *reinterpret_cast<unsigned*>(&p2);
                    packed.w = *reinterpret_cast<unsigned*>(&p3);
                    *reinterpret_cast<uint4*>(c + (long long)gr * n + gc) = packed;
                } else {
                    for (int e = 0; e < 8; ++e)
                        if (gc + e < n)
                            c[(long long)gr * n + gc + e] =
                                __float2bfloat16_rn(gelu(src[e] + __bfloat162float(bias[gc + e])));
                }
            }
            __syncwarp();
        }
    }
}

// Any shape, any alignment: 32x32 tiles through shared memory, fp32 FMAs.
constexpr int ST = 32;
__global__ void gemm_simple(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ b,
                            const __nv_bfloat16* __restrict__ bias, __nv_bfloat16* __restrict__ c, int m, int n, int k) {
    __shared__ float ta[ST][ST + 1];
    __shared__ float tb[ST][ST + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;  // 32 x 8 threads, 4 rows each
    const int col = blockIdx.x * ST + tx;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < k; k0 += ST) {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            int r = ty + 8 * q;
            int ar = blockIdx.y * ST + r, ac = k0 + tx;
            ta[r][tx] = (ar < m && ac < k) ? __bfloat162float(a[(long long)ar * k + ac]) : 0.0f;
            int br = k0 + r;
            tb[r][tx] = (br < k && col < n) ? __bfloat162float(b[(long long)br * n + col]) : 0.0f;
        }
        __syncthreads();
#pragma unroll 8
        for (int kk = 0; kk < ST; ++kk) {
            float bv = tb[kk][tx];
#pragma unroll
            for (int q = 0; q < 4; ++q) acc[q] = fmaf(ta[ty + 8 * q][kk], bv, acc[q]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        int row = blockIdx.y * ST + ty + 8 * q;
        if (row < m && col < n)
            c[(long long)row * n + col] = __float2bfloat16_rn(gelu(acc[q] + __bfloat162float(bias[col])));
    }
}


// =============================================================================================
// Host side.
// =============================================================================================
typedef CUresult (*EncodeTiledFn)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                  const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                  CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

// The driver's cuTensorMapEncodeTiled, found through the runtime (no -lcuda needed).
EncodeTiledFn encode_tiled_fn() {
    static bool tried = false;
    static EncodeTiledFn fn = nullptr;
    if (!tried) {
        tried = true;
        void* p = nullptr;
        cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
        cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q);
#else
        cudaError_t e = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &p, cudaEnableDefault, &q);
#endif
        if (e == cudaSuccess && q == cudaDriverEntryPointSuccess && p != nullptr) fn = reinterpret_cast<EncodeTiledFn>(p);
        else (void)cudaGetLastError();  // do not leave an error behind for the caller
    }
    return fn;
}

// Row-major [rows, cols] bf16 matrix, box = box_cols (contiguous, 64 = 128 bytes) x box_rows.
bool make_tmap(CUtensorMap* map, const void* ptr, int rows, int cols, int box_cols, int box_rows) {
    EncodeTiledFn enc = encode_tiled_fn();
    if (enc == nullptr) return false;
    cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
    cuuint64_t strides[1] = {static_cast<cuuint64_t>(cols) * 2};  // bytes between rows
    cuuint32_t box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)};
    cuuint32_t elem_strides[2] = {1, 1};
    CUresult r = enc(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(ptr), dims, strides, box, elem_strides,
                     CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE /* out-of-range elements read as zero */);
    return r == CUDA_SUCCESS;
}

// Test hooks, as in the matmul expert: which kernel the last solve() call launched (0 none,
// 1 wgmma, 2 wmma, 3 simple), and a forced wgmma variant (-1 automatic, 0 without setmaxnreg,
// 1 with setmaxnreg).
int g_last_path = 0;
int g_wgmma_variant = -1;

struct WgmmaLaunchState {
    bool ready = false;
    bool usable = false;
    bool use_setmaxnreg = false;
    int device = -1;
    int sms = 0;
};

// Picks the wgmma kernel variant once per device. setmaxnreg.inc blocks until the CTA's register
// pool can serve it, so it is only used when ptxas gave the kernel exactly the 168 registers per
// thread that 384 threads at one CTA per SM allow (128*40 + 256*232 = 384*168).
const WgmmaLaunchState& wgmma_state() {
    static WgmmaLaunchState st;
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return st;
    }
    if (st.ready && st.device == dev) return st;
    st = WgmmaLaunchState();
    st.ready = true;
    st.device = dev;
    int major = 0, sms = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || major != 9) {
        (void)cudaGetLastError();
        return st;
    }
    st.sms = sms;
    cudaFuncAttributes attr;
    if (cudaFuncGetAttributes(&attr, gemm_wgmma<true>) == cudaSuccess && attr.numRegs == 168)
        st.use_setmaxnreg = true;
    (void)cudaGetLastError();
    cudaError_t e1 = cudaFuncSetAttribute(gemm_wgmma<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, WG_SMEM_BYTES);
    cudaError_t e2 = cudaFuncSetAttribute(gemm_wgmma<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, WG_SMEM_BYTES);
    if (e1 != cudaSuccess || e2 != cudaSuccess || encode_tiled_fn() == nullptr) {
        (void)cudaGetLastError();
        return st;
    }
    st.usable = true;
    return st;
}

bool launch_wgmma(const __nv_bfloat16* a, const __nv_bfloat16* b, const __nv_bfloat16* bias, __nv_bfloat16* c, int m,
                  int n, int k) {
    const WgmmaLaunchState& st = wgmma_state();
    if (!st.usable) return false;
    // One-entry cache of the tensor maps (the benchmark calls repeat the same buffers).
    static CUtensorMap map_a, map_b;
    static const void* cached_a = nullptr;
    static const void* cached_b = nullptr;
    static int cached_m = -1, cached_n = -1, cached_k = -1, cached_dev = -1;
    if (a != cached_a || b != cached_b || m != cached_m || n != cached_n || k != cached_k || st.device != cached_dev) {
        cached_a = nullptr;
        if (!make_tmap(&map_a, a, m, k, 64, WG_BM)) return false;  // a: [m, k], box 64 (k) x 128 (m)
        if (!make_tmap(&map_b, b, k, n, 64, WG_BK)) return false;  // b: [k, n], box 64 (n) x 64 (k)
        cached_a = a;
        cached_b = b;
        cached_m = m;
        cached_n = n;
        cached_k = k;
        cached_dev = st.device;
    }
    const int tiles = ((m + WG_BM - 1) / WG_BM) * ((n + WG_BN - 1) / WG_BN);
    const int grid = tiles < st.sms ? tiles : st.sms;
    const bool with_setmaxnreg = g_wgmma_variant < 0 ? st.use_setmaxnreg : g_wgmma_variant == 1;
    if (with_setmaxnreg)
        gemm_wgmma<true><<<grid, WG_THREADS, WG_SMEM_BYTES>>>(map_a, map_b, bias, c, m, n, k);
    else
        gemm_wgmma<false><<<grid, WG_THREADS, WG_SMEM_BYTES>>>(map_a, map_b, bias, c, m, n, k);
    return true;
}

}  // namespace

extern "C" void solve(const __nv_bfloat16* a, const __nv_bfloat16* b, const __nv_bfloat16* bias, __nv_bfloat16* c,
                      int m, int n, int k) {
    g_last_path = 0;
    if (m <= 0 || n <= 0) return;
    // 16-byte aligned bases (the bias too: the epilogues read it in bf16 pairs).
    bool aligned = ((reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b) | reinterpret_cast<uintptr_t>(bias) |
                     reinterpret_cast<uintptr_t>(c)) &
                    15) == 0;
    // TMA needs 16-byte aligned base addresses and row pitches (k, n multiples of 8); below one
    // tile in any dimension the old kernel is just as good.
    if (aligned && k % 8 == 0 && n % 8 == 0 && m >= WG_BM && n >= WG_BN && k >= WG_BK) {
        if (launch_wgmma(a, b, bias, c, m, n, k)) {
            g_last_path = 1;
            return;
        }
    }
    if (aligned && k % 8 == 0 && n % 8 == 0) {
        static bool configured = false;
        if (!configured) {
            cudaFuncSetAttribute(gemm_wmma, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
            configured = true;
        }
        int tiles = ((m + BM - 1) / BM) * ((n + BN - 1) / BN);
        gemm_wmma<<<tiles, THREADS, SMEM_BYTES>>>(a, b, bias, c, m, n, k);
        g_last_path = 2;
    } else {
        dim3 grid((n + ST - 1) / ST, (m + ST - 1) / ST);
        gemm_simple<<<grid, dim3(32, 8)>>>(a, b, bias, c, m, n, k);
        g_last_path = 3;
    }
}
