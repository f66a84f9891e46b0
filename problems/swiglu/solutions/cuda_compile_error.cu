// Compile error: the helper promises a float pointer and returns a __nv_bfloat16 value.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ float* widened(const __nv_bfloat16* p, long long i) { return p[i]; }

__global__ void swiglu_kernel(const __nv_bfloat16* gate, const __nv_bfloat16* up, __nv_bfloat16* out, long long total) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < total) out[i] = __float2bfloat16(*widened(gate, i) * *widened(up, i));
}

extern "C" void solve(const __nv_bfloat16* gate, const __nv_bfloat16* up, __nv_bfloat16* out, int m, int n) {
    long long total = (long long)m * n;
    swiglu_kernel<<<(unsigned int)((total + 255) / 256), 256>>>(gate, up, out, total);
}
