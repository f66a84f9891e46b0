#include <cuda_bf16.h>
#include <cuda_runtime.h>

constexpr float EPS = 1e-6f;

__global__ void add_rmsnorm_kernel(const __nv_bfloat16* x, const __nv_bfloat16* residual, const __nv_bfloat16* weight,
                                   __nv_bfloat16* h, __nv_bfloat16* y, int n) {
    // TODO: block blockIdx.x handles row blockIdx.x: s = x + residual in fp32, store h = s,
    // reduce the sum of s * s over the row, then y = s * rsqrtf(sum / n + EPS) * weight
}

// All pointers are device pointers. Launch on the default stream; do not synchronize.
extern "C" void solve(const __nv_bfloat16* x, const __nv_bfloat16* residual, const __nv_bfloat16* weight,
                      __nv_bfloat16* h, __nv_bfloat16* y, int m, int n) {
    add_rmsnorm_kernel<<<m, 256>>>(x, residual, weight, h, y, n);
}
