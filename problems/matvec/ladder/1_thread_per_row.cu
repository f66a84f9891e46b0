// Rung 1: one thread per row, a serial fp32 dot product over k. At every step the 32 threads of a
// warp read 32 bf16 values 2 * k bytes apart (one per row): each load instruction touches 32
// different sectors and uses 2 bytes of each.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

constexpr int THREADS = 128;

__global__ void matvec_thread_rows(const __nv_bfloat16* __restrict__ w, const __nv_bfloat16* __restrict__ x,
                                   float* __restrict__ y, int m, int k) {
    const int row = blockIdx.x * THREADS + threadIdx.x;
    if (row >= m) return;
    const __nv_bfloat16* w_row = w + (long long)row * k;
    float acc = 0.0f;
    for (int p = 0; p < k; ++p) acc = fmaf(__bfloat162float(w_row[p]), __bfloat162float(x[p]), acc);
    y[row] = acc;
}

extern "C" void solve(const __nv_bfloat16* w, const __nv_bfloat16* x, float* y, int m, int k) {
    matvec_thread_rows<<<(m + THREADS - 1) / THREADS, THREADS>>>(w, x, y, m, k);
}
