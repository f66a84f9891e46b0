// Compile error: a bf16 value assigned to a pointer.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void matvec_rows(const __nv_bfloat16* w, const __nv_bfloat16* x, float* y, int m, int k) {
    const __nv_bfloat16* wr = w[blockIdx.x * k];
    float acc = 0.0f;
    for (int p = threadIdx.x; p < k; p += 32) acc += __bfloat162float(wr[p]) * __bfloat162float(x[p]);
    if (threadIdx.x == 0) y[blockIdx.x] = acc;
}

extern "C" void solve(const __nv_bfloat16* w, const __nv_bfloat16* x, float* y, int m, int k) {
    matvec_rows<<<m, 32>>>(w, x, y, m, k);
}
