// Accepted: one block of 256 threads per row; each thread keeps its fp32 sums in a small
// register array (rows up to 256 * 32 columns) between the reduction and the output; longer
// rows recompute the sum from x and residual in a second loop.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

constexpr float EPS = 1e-6f;
constexpr int THREADS = 256, HELD = 32;

__global__ void add_rmsnorm_rows(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ r,
                                 const __nv_bfloat16* __restrict__ w, __nv_bfloat16* __restrict__ h,
                                 __nv_bfloat16* __restrict__ y, int n) {
    __shared__ float scratch[THREADS / 32];
    const long long base = (long long)blockIdx.x * n;
    float held[HELD];
    float q = 0.0f;
#pragma unroll
    for (int i = 0; i < HELD; ++i) {
        const int j = threadIdx.x + i * THREADS;
        held[i] = 0.0f;
        if (j < n) {
            held[i] = __bfloat162float(x[base + j]) + __bfloat162float(r[base + j]);
            h[base + j] = __float2bfloat16(held[i]);
            q += held[i] * held[i];
        }
    }
    for (int j = threadIdx.x + HELD * THREADS; j < n; j += THREADS) {
        const float s = __bfloat162float(x[base + j]) + __bfloat162float(r[base + j]);
        h[base + j] = __float2bfloat16(s);
        q += s * s;
    }
    for (int o = 16; o > 0; o >>= 1) q += __shfl_xor_sync(0xffffffffu, q, o);
    if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = q;
    __syncthreads();
    q = threadIdx.x < THREADS / 32 ? scratch[threadIdx.x] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) q += __shfl_xor_sync(0xffffffffu, q, o);
    const float rstd = rsqrtf(__shfl_sync(0xffffffffu, q, 0) / n + EPS);
    __syncthreads();
    if (threadIdx.x == 0) scratch[0] = rstd;
    __syncthreads();
    const float scale = scratch[0];
#pragma unroll
    for (int i = 0; i < HELD; ++i) {
        const int j = threadIdx.x + i * THREADS;
        if (j < n) y[base + j] = __float2bfloat16(held[i] * scale * __bfloat162float(w[j]));
    }
    for (int j = threadIdx.x + HELD * THREADS; j < n; j += THREADS) {
        const float s = __bfloat162float(x[base + j]) + __bfloat162float(r[base + j]);
        y[base + j] = __float2bfloat16(s * scale * __bfloat162float(w[j]));
    }
}

extern "C" void solve(const __nv_bfloat16* x, const __nv_bfloat16* residual, const __nv_bfloat16* weight,
                      __nv_bfloat16* h, __nv_bfloat16* y, int m, int n) {
    add_rmsnorm_rows<<<m, THREADS>>>(x, residual, weight, h, y, n);
}
