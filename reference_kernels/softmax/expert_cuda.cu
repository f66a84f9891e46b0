// Expert CUDA solution for row-wise softmax (obeys the submission contract).
//
// Three regimes, all reading x once from DRAM and writing y once:
//   n <= 1024     one warp per row, the row in registers, shuffles only (8 rows per block);
//   n <= 32768    one 512-thread block per row, the row in registers, two block reductions;
//   longer rows   one block per row: an online pass keeps a per-thread running max and a
//                 rescaled running sum, then a second pass walks the row backwards so the part
//                 read last (still in L2) is re-read first.
// Rows whose length is a multiple of 4 use 16-byte loads and stores. exp(v - max) is computed as
// exp2f((v - max) * log2(e)).
#include <cuda_runtime.h>
#include <math_constants.h>
#include <stdint.h>

namespace {

constexpr float kLog2e = 1.4426950408889634f;
constexpr int kWarpRowsThreads = 256;  // 8 rows per block
constexpr int kBlockThreads = 512;

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// Block-wide reductions whose result every thread receives.
__device__ float block_max(float v) {
    __shared__ float partial[32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    v = warp_max(v);
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    v = warp_max(lane < warps ? partial[lane] : -CUDART_INF_F);
    __syncthreads();
    return v;
}

__device__ float block_sum(float v) {
    __shared__ float partial[32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    v = warp_sum(v);
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    v = warp_sum(lane < warps ? partial[lane] : 0.0f);
    __syncthreads();
    return v;
}

// Column of element j of this thread: VEC threads own float4 groups strided by `step` groups.
template <bool VEC>
__device__ __forceinline__ int column_of(int j, int who, int step) {
    return VEC ? ((who + step * (j / 4)) * 4 + (j % 4)) : (who + step * j);
}

template <int PER, bool VEC>
__device__ __forceinline__ void load_row(const float* __restrict__ row, int n, int who, int step, float (&v)[PER]) {
    if constexpr (VEC) {
#pragma unroll
        for (int g = 0; g < PER / 4; ++g) {
            int c = (who + step * g) * 4;
            float4 t = c < n ? __ldcg(reinterpret_cast<const float4*>(row + c))
                             : make_float4(-CUDART_INF_F, -CUDART_INF_F, -CUDART_INF_F, -CUDART_INF_F);
            v[4 * g] = t.x;
            v[4 * g + 1] = t.y;
            v[4 * g + 2] = t.z;
            v[4 * g + 3] = t.w;
        }
    } else {
#pragma unroll
        for (int j = 0; j < PER; ++j) {
            int c = who + step * j;
            v[j] = c < n ? __ldcg(row + c) : -CUDART_INF_F;
        }
    }
}

template <int PER, bool VEC>
__device__ __forceinline__ void store_row(float* __restrict__ row, int n, int who, int step, const float (&v)[PER]) {
    if constexpr (VEC) {
#pragma unroll
        for (int g = 0; g < PER / 4; ++g) {
            int c = (who + step * g) * 4;
            if (c < n) __stcs(reinterpret_cast<float4*>(row + c), make_float4(v[4 * g], v[4 * g + 1], v[4 * g + 2], v[4 * g + 3]));
        }
    } else {
#pragma unroll
        for (int j = 0; j < PER; ++j) {
            int c = who + step * j;
            if (c < n) __stcs(row + c, v[j]);
        }
    }
}

template <int PER, bool VEC>
__global__ void __launch_bounds__(kWarpRowsThreads) softmax_warp_rows(const float* __restrict__ x, float* __restrict__ y,
                                                                      int m, int n) {
    int row = blockIdx.x * (kWarpRowsThreads / 32) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (row >= m) return;  // whole warps leave together
    float v[PER];
    load_row<PER, VEC>(x + (long long)row * n, n, lane, 32, v);
    float mx = -CUDART_INF_F;
#pragma unroll
    for (int j = 0; j < PER; ++j) mx = fmaxf(mx, v[j]);
    mx = warp_max(mx);
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < PER; ++j) {
        v[j] = exp2f((v[j] - mx) * kLog2e);  // padding: exp2(-inf) = 0
        s += v[j];
    }
    float inv = 1.0f / warp_sum(s);
#pragma unroll
    for (int j = 0; j < PER; ++j) v[j] *= inv;
    store_row<PER, VEC>(y + (long long)row * n, n, lane, 32, v);
}

template <int PER, bool VEC>
__global__ void __launch_bounds__(kBlockThreads) softmax_block_rows(const float* __restrict__ x, float* __restrict__ y,
                                                                    int n) {
    long long base = (long long)blockIdx.x * n;
    float v[PER];
    load_row<PER, VEC>(x + base, n, threadIdx.x, kBlockThreads, v);
    float mx = -CUDART_INF_F;
#pragma unroll
    for (int j = 0; j < PER; ++j) mx = fmaxf(mx, v[j]);
    mx = block_max(mx);
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < PER; ++j) {
        v[j] = exp2f((v[j] - mx) * kLog2e);
        s += v[j];
    }
    float inv = 1.0f / block_sum(s);
#pragma unroll
    for (int j = 0; j < PER; ++j) v[j] *= inv;
    store_row<PER, VEC>(y + base, n, threadIdx.x, kBlockThreads, v);
}

__device__ __forceinline__ void online_add4(float& m, float& s, float a, float b, float c, float d) {
    float tile_max = fmaxf(fmaxf(a, b), fmaxf(c, d));
    float new_max = fmaxf(m, tile_max);
    s = s * exp2f((m - new_max) * kLog2e) + exp2f((a - new_max) * kLog2e) + exp2f((b - new_max) * kLog2e) +
        exp2f((c - new_max) * kLog2e) + exp2f((d - new_max) * kLog2e);
    m = new_max;
}

__global__ void __launch_bounds__(kBlockThreads) softmax_online_rows(const float* __restrict__ x, float* __restrict__ y,
                                                                     int n, bool vec) {
    const float* xr = x + (long long)blockIdx.x * n;
    float* yr = y + (long long)blockIdx.x * n;
    const int t = threadIdx.x;
    float m = -CUDART_INF_F, s = 0.0f;
    int n4 = vec ? n / 4 : 0;
    for (int i = t; i < n4; i += kBlockThreads) {
        float4 v = __ldcg(reinterpret_cast<const float4*>(xr) + i);
        online_add4(m, s, v.x, v.y, v.z, v.w);
    }
    for (int c = n4 * 4 + t; c < n; c += kBlockThreads) {
        float v = __ldcg(xr + c);
        online_add4(m, s, v, -CUDART_INF_F, -CUDART_INF_F, -CUDART_INF_F);
    }
    float row_max = block_max(m);
    // Threads that saw nothing have m = -inf and s = 0: their term is 0 * 0.
    float total = block_sum(s * exp2f((m - row_max) * kLog2e));
    float inv = 1.0f / total;
    for (int c = n - 1 - t; c >= n4 * 4; c -= kBlockThreads) {
        __stcs(yr + c, exp2f((__ldcg(xr + c) - row_max) * kLog2e) * inv);
    }
    for (int i = n4 - 1 - t; i >= 0; i -= kBlockThreads) {
        float4 v = __ldcg(reinterpret_cast<const float4*>(xr) + i);
        float4 r = make_float4(exp2f((v.x - row_max) * kLog2e) * inv, exp2f((v.y - row_max) * kLog2e) * inv,
                               exp2f((v.z - row_max) * kLog2e) * inv, exp2f((v.w - row_max) * kLog2e) * inv);
        __stcs(reinterpret_cast<float4*>(yr) + i, r);
    }
}

int next_pow2(int v) {
    int p = 1;
    while (p < v) p <<= 1;
    return p;
}

template <bool VEC>
void launch_warp_rows(const float* x, float* y, int m, int n) {
    dim3 grid((m + kWarpRowsThreads / 32 - 1) / (kWarpRowsThreads / 32));
    int per = VEC ? 4 * next_pow2((n + 127) / 128) : next_pow2((n + 31) / 32);
    switch (per) {
        case 1: softmax_warp_rows<1, false><<<grid, kWarpRowsThreads>>>(x, y, m, n); break;
        case 2: softmax_warp_rows<2, false><<<grid, kWarpRowsThreads>>>(x, y, m, n); break;
        case 4: softmax_warp_rows<4, VEC><<<grid, kWarpRowsThreads>>>(x, y, m, n); break;
        case 8: softmax_warp_rows<8, VEC><<<grid, kWarpRowsThreads>>>(x, y, m, n); break;
        case 16: softmax_warp_rows<16, VEC><<<grid, kWarpRowsThreads>>>(x, y, m, n); break;
        default: softmax_warp_rows<32, VEC><<<grid, kWarpRowsThreads>>>(x, y, m, n); break;
    }
}

template <bool VEC>
void launch_block_rows(const float* x, float* y, int m, int n) {
    int per = VEC ? 4 * next_pow2((n + 4 * kBlockThreads - 1) / (4 * kBlockThreads))
                  : next_pow2((n + kBlockThreads - 1) / kBlockThreads);
    switch (per) {
        case 1:
        case 2:
        case 4: softmax_block_rows<4, VEC><<<m, kBlockThreads>>>(x, y, n); break;
        case 8: softmax_block_rows<8, VEC><<<m, kBlockThreads>>>(x, y, n); break;
        case 16: softmax_block_rows<16, VEC><<<m, kBlockThreads>>>(x, y, n); break;
        case 32: softmax_block_rows<32, VEC><<<m, kBlockThreads>>>(x, y, n); break;
        default: softmax_block_rows<64, VEC><<<m, kBlockThreads>>>(x, y, n); break;
    }
}

}  // namespace

extern "C" void solve(const float* x, float* y, int m, int n) {
    if (m <= 0 || n <= 0) return;
    bool vec = n % 4 == 0 && ((reinterpret_cast<uintptr_t>(x) | reinterpret_cast<uintptr_t>(y)) & 15) == 0;
    if (n <= 1024) {
        if (vec) launch_warp_rows<true>(x, y, m, n); else launch_warp_rows<false>(x, y, m, n);
    } else if (n <= 32768) {
        if (vec) launch_block_rows<true>(x, y, m, n); else launch_block_rows<false>(x, y, m, n);
    } else {
        softmax_online_rows<<<m, kBlockThreads>>>(x, y, n, vec);
    }
}
