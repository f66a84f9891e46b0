// Compile error: a __nv_bfloat16 stored through a float pointer without conversion.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void add_rmsnorm_rows(const __nv_bfloat16* x, const __nv_bfloat16* r, const __nv_bfloat16* w,
                                 __nv_bfloat16* h, __nv_bfloat16* y, int n) {
    float* out = h;
    out[threadIdx.x] = x[threadIdx.x] + r[threadIdx.x];
}

extern "C" void solve(const __nv_bfloat16* x, const __nv_bfloat16* residual, const __nv_bfloat16* weight,
                      __nv_bfloat16* h, __nv_bfloat16* y, int m, int n) {
    add_rmsnorm_rows<<<m, 256>>>(x, residual, weight, h, y, n);
}
