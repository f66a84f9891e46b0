// Accepted: the CUDA starter completed as its TODO says: one thread per output element
// accumulates a[row, p] * b[p, col] over p in float and stores it rounded to bf16.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

// One thread per output element: correct, and a long way from the tensor cores.
__global__ void matmul_kernel(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int m, int n, int k) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < m && col < n) {
        float acc = 0.0f;
        for (int p = 0; p < k; ++p) {
            acc += __bfloat162float(a[row * k + p]) * __bfloat162float(b[p * n + col]);
        }
        c[row * n + col] = __float2bfloat16(acc);
    }
}

// a, b, c are device pointers. Launch on the default stream; do not synchronize.
extern "C" void solve(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int m, int n, int k) {
    dim3 threads(16, 16);
    dim3 blocks((n + 15) / 16, (m + 15) / 16);
    matmul_kernel<<<blocks, threads>>>(a, b, c, m, n, k);
}
