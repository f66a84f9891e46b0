// Wrong: the shuffle tree starts at offset 8 (written for 16-lane groups): lane 0 ends with the
// sum of lanes 0-15 only; the products held by lanes 16-31 are lost.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void matvec_rows(const __nv_bfloat16* w, const __nv_bfloat16* x, float* y, int m, int k) {
    const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (row >= m) return;
    float acc = 0.0f;
    for (int p = lane; p < k; p += 32) acc += __bfloat162float(w[(long long)row * k + p]) * __bfloat162float(x[p]);
    for (int o = 8; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (lane == 0) y[row] = acc;
}

extern "C" void solve(const __nv_bfloat16* w, const __nv_bfloat16* x, float* y, int m, int k) {
    matvec_rows<<<(m + 7) / 8, 256>>>(w, x, y, m, k);
}
