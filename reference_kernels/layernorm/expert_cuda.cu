// Expert CUDA solution for layernorm (obeys the contract).
//
// One block of 512 threads per row. When n % 4 == 0 and the row fits (n <= 512 * 4 * 8), each
// thread loads its share of the row once as float4 into registers; the sum and then the sum of
// centred squares are reduced from registers (warp shuffles, one shared-memory step each), and
// y is written from the same registers: x is read exactly once. Other rows take a two-pass loop
// whose second read hits L2.
#include <cuda_runtime.h>

constexpr float EPS = 1e-5f;
constexpr int THREADS = 512;
constexpr int VECS = 8;  // float4 per thread held in registers: rows up to 16384 columns

__device__ __forceinline__ float block_sum(float v, float* scratch) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    __syncthreads();  // readers of the previous reduction are done with scratch
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = lane < THREADS / 32 ? scratch[lane] : 0.0f;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__global__ void __launch_bounds__(THREADS) layernorm_registers(const float* __restrict__ x,
                                                               const float* __restrict__ w,
                                                               const float* __restrict__ b, float* __restrict__ y,
                                                               int n) {
    __shared__ float scratch[32];
    const float4* xr = reinterpret_cast<const float4*>(x + (long long)blockIdx.x * n);
    float4* yr = reinterpret_cast<float4*>(y + (long long)blockIdx.x * n);
    const float4* w4 = reinterpret_cast<const float4*>(w);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    const int vecs = n / 4;
    float4 v[VECS];
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < VECS; ++i) {
        const int j = threadIdx.x + i * THREADS;
        v[i] = j < vecs ? __ldcs(xr + j) : make_float4(0.f, 0.f, 0.f, 0.f);
        s += (v[i].x + v[i].y) + (v[i].z + v[i].w);
    }
    const float mean = block_sum(s, scratch) / n;
    float q = 0.0f;
#pragma unroll
    for (int i = 0; i < VECS; ++i) {
        const int j = threadIdx.x + i * THREADS;
        if (j < vecs) {
            float a = v[i].x - mean, bb = v[i].y - mean, c = v[i].z - mean, d = v[i].w - mean;
            q += (a * a + bb * bb) + (c * c + d * d);
        }
    }
    const float rstd = rsqrtf(block_sum(q, scratch) / n + EPS);
#pragma unroll
    for (int i = 0; i < VECS; ++i) {
        const int j = threadIdx.x + i * THREADS;
        if (j < vecs) {
            float4 ww = w4[j], bv = b4[j], o;
            o.x = (v[i].x - mean) * rstd * ww.x + bv.x;
            o.y = (v[i].y - mean) * rstd * ww.y + bv.y;
            o.z = (v[i].z - mean) * rstd * ww.z + bv.z;
            o.w = (v[i].w - mean) * rstd * ww.w + bv.w;
            __stcs(yr + j, o);
        }
    }
}

__global__ void __launch_bounds__(THREADS) layernorm_two_pass(const float* __restrict__ x, const float* __restrict__ w,
                                                              const float* __restrict__ b, float* __restrict__ y,
                                                              int n) {
    __shared__ float scratch[32];
    const float* xr = x + (long long)blockIdx.x * n;
    float* yr = y + (long long)blockIdx.x * n;
    float s = 0.0f;
    for (int j = threadIdx.x; j < n; j += THREADS) s += xr[j];
    const float mean = block_sum(s, scratch) / n;
    float q = 0.0f;
    for (int j = threadIdx.x; j < n; j += THREADS) {
        float d = xr[j] - mean;
        q += d * d;
    }
    const float rstd = rsqrtf(block_sum(q, scratch) / n + EPS);
    for (int j = threadIdx.x; j < n; j += THREADS) yr[j] = (xr[j] - mean) * rstd * w[j] + b[j];
}

extern "C" void solve(const float* x, const float* weight, const float* bias, float* y, int m, int n) {
    if (n % 4 == 0 && n <= THREADS * 4 * VECS)
        layernorm_registers<<<m, THREADS>>>(x, weight, bias, y, n);
    else
        layernorm_two_pass<<<m, THREADS>>>(x, weight, bias, y, n);
}
