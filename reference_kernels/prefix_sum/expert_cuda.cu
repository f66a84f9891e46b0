// Expert CUDA solution for prefix_sum (obeys the contract): a single-pass scan with decoupled
// look-back, so x is read once and y written once (8 bytes per element).
//
// - Tiles of 4096 elements (256 threads x 16), numbered by an atomic ticket in the order blocks
//   start, so every tile's predecessors are already running (no deadlock).
// - In a tile: each thread scans its 16 values (four float4 loads) serially, warps scan the
//   thread totals with shuffles, warp 0 scans the warp totals.
// - Each tile publishes its aggregate at once, then warp 0 looks back 32 predecessors at a time:
//   it adds aggregates until it meets a tile that has published its inclusive prefix, then
//   publishes its own. Flag and value share one 64-bit word, so a reader never sees a flag
//   without its value.
#include <cuda_runtime.h>

constexpr int THREADS = 256;
constexpr int ITEMS = 16;
constexpr int TILE = THREADS * ITEMS;
constexpr unsigned FULL = 0xffffffffu;
constexpr unsigned long long AGGREGATE = 1ull << 32;
constexpr unsigned long long INCLUSIVE = 2ull << 32;

__device__ __forceinline__ unsigned long long read_state(const unsigned long long* p) {
    return *reinterpret_cast<const volatile unsigned long long*>(p);
}

__device__ __forceinline__ void publish(unsigned long long* p, unsigned long long flag, float value) {
    atomicExch(p, flag | __float_as_uint(value));
}

__global__ void __launch_bounds__(THREADS) scan_single_pass(const float* __restrict__ x, float* __restrict__ y,
                                                            unsigned long long* __restrict__ state,
                                                            unsigned* __restrict__ ticket, int n) {
    __shared__ float warp_sums[THREADS / 32];
    __shared__ float tile_exclusive;
    __shared__ unsigned tile_shared;
    if (threadIdx.x == 0) tile_shared = atomicAdd(ticket, 1u);
    __syncthreads();
    const unsigned tile = tile_shared;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long base = (long long)tile * TILE + (long long)threadIdx.x * ITEMS;
    const bool full = (long long)(tile + 1) * TILE <= n;

    float v[ITEMS];
    if (full) {
        const float4* src = reinterpret_cast<const float4*>(x + base);
#pragma unroll
        for (int q = 0; q < ITEMS / 4; ++q) {
            float4 f = src[q];
            v[4 * q] = f.x, v[4 * q + 1] = f.y, v[4 * q + 2] = f.z, v[4 * q + 3] = f.w;
        }
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) v[k] = base + k < n ? x[base + k] : 0.0f;
    }
#pragma unroll
    for (int k = 1; k < ITEMS; ++k) v[k] += v[k - 1];

    // Inclusive scan of the thread totals within the warp, then across the warps.
    float t = v[ITEMS - 1];
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        float up = __shfl_up_sync(FULL, t, o);
        if (lane >= o) t += up;
    }
    if (lane == 31) warp_sums[warp] = t;
    __syncthreads();
    if (warp == 0) {
        float w = lane < THREADS / 32 ? warp_sums[lane] : 0.0f;
#pragma unroll
        for (int o = 1; o < THREADS / 32; o <<= 1) {
            float up = __shfl_up_sync(FULL, w, o);
            if (lane >= o) w += up;
        }
        const float aggregate = __shfl_sync(FULL, w, THREADS / 32 - 1);
        if (lane < THREADS / 32) warp_sums[lane] = w;  // inclusive warp prefixes
        float exclusive = 0.0f;
        if (tile == 0) {
            if (lane == 0) publish(&state[0], INCLUSIVE, aggregate);
        } else {
            if (lane == 0) publish(&state[tile], AGGREGATE, aggregate);
            long long idx = (long long)tile - 1 - lane;
            while (true) {
                unsigned long long s = idx >= 0 ? read_state(&state[idx]) : INCLUSIVE;
                unsigned flag = (unsigned)(s >> 32);
                unsigned missing = __ballot_sync(FULL, flag == 0);
                unsigned inclusive = __ballot_sync(FULL, flag == 2);
                int stop = inclusive ? __ffs(inclusive) - 1 : 31;
                unsigned window = stop == 31 ? FULL : ((2u << stop) - 1u);
                if (missing & window) continue;  // a predecessor has not published yet: read again
                float part = lane <= stop ? __uint_as_float((unsigned)s) : 0.0f;
#pragma unroll
                for (int o = 16; o > 0; o >>= 1) part += __shfl_xor_sync(FULL, part, o);
                exclusive += part;
                if (inclusive & window) break;
                idx -= 32;
            }
            if (lane == 0) publish(&state[tile], INCLUSIVE, exclusive + aggregate);
        }
        if (lane == 0) tile_exclusive = exclusive;
    }
    __syncthreads();
    const float before = tile_exclusive + (warp ? warp_sums[warp - 1] : 0.0f) + (t - v[ITEMS - 1]);
    if (full) {
        float4* dst = reinterpret_cast<float4*>(y + base);
#pragma unroll
        for (int q = 0; q < ITEMS / 4; ++q)
            dst[q] = make_float4(v[4 * q] + before, v[4 * q + 1] + before, v[4 * q + 2] + before, v[4 * q + 3] + before);
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k)
            if (base + k < n) y[base + k] = v[k] + before;
    }
}

static unsigned long long* scratch = nullptr;
static size_t scratch_words = 0;

extern "C" void solve(const float* x, float* y, int n) {
    const int tiles = (n + TILE - 1) / TILE;
    const size_t words = (size_t)tiles + 1;  // tile states, then the ticket counter
    if (words > scratch_words) {
        if (scratch) cudaFree(scratch);
        cudaMalloc(&scratch, words * sizeof(unsigned long long));
        scratch_words = words;
    }
    cudaMemsetAsync(scratch, 0, words * sizeof(unsigned long long));
    scan_single_pass<<<tiles, THREADS>>>(x, y, scratch, reinterpret_cast<unsigned*>(scratch + tiles), n);
}
