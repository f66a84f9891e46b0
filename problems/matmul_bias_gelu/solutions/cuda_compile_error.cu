// Compile error: the epilogue writes through the const bias pointer (meant to write c).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void linear_gelu_kernel(const __nv_bfloat16* a, const __nv_bfloat16* b, const __nv_bfloat16* bias,
                                   __nv_bfloat16* c, int m, int n, int k) {
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m || col >= n) return;
    float acc = 0.0f;
    for (int p = 0; p < k; ++p) acc += __bfloat162float(a[row * k + p]) * __bfloat162float(b[p * n + col]);
    bias[col] = __float2bfloat16(acc);
}

extern "C" void solve(const __nv_bfloat16* a, const __nv_bfloat16* b, const __nv_bfloat16* bias, __nv_bfloat16* c,
                      int m, int n, int k) {
    dim3 threads(16, 16), blocks((n + 15) / 16, (m + 15) / 16);
    linear_gelu_kernel<<<blocks, threads>>>(a, b, bias, c, m, n, k);
}
