// Accepted: the CUDA starter completed as its TODO says: block blockIdx.x handles row
// blockIdx.x; s = x + residual in fp32 is stored as h and its squares summed, a shared-memory
// tree reduces the sum, then a second loop recomputes s and stores y = s * rsqrtf(sum / n + EPS)
// * weight.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

constexpr float EPS = 1e-6f;

__global__ void add_rmsnorm_kernel(const __nv_bfloat16* x, const __nv_bfloat16* residual, const __nv_bfloat16* weight,
                                   __nv_bfloat16* h, __nv_bfloat16* y, int n) {
    __shared__ float partial[256];
    long long base = (long long)blockIdx.x * n;
    float squares = 0.0f;
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        float s = __bfloat162float(x[base + j]) + __bfloat162float(residual[base + j]);
        h[base + j] = __float2bfloat16(s);
        squares += s * s;
    }
    partial[threadIdx.x] = squares;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) {
            partial[threadIdx.x] += partial[threadIdx.x + stride];
        }
        __syncthreads();
    }
    float rstd = rsqrtf(partial[0] / n + EPS);
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        float s = __bfloat162float(x[base + j]) + __bfloat162float(residual[base + j]);
        y[base + j] = __float2bfloat16(s * rstd * __bfloat162float(weight[j]));
    }
}

// All pointers are device pointers. Launch on the default stream; do not synchronize.
extern "C" void solve(const __nv_bfloat16* x, const __nv_bfloat16* residual, const __nv_bfloat16* weight,
                      __nv_bfloat16* h, __nv_bfloat16* y, int m, int n) {
    add_rmsnorm_kernel<<<m, 256>>>(x, residual, weight, h, y, n);
}
