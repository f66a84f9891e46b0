#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kGroup = 128;  // k per scale and zero point: 16 words of 8 weights

// One warp per (token, output feature): c[token, feature] = sum_p a[token, p] * w[feature, p],
// w[feature, p] = (q - zeros[feature, p / 128]) * scales[feature, p / 128].
__global__ void w4a16_kernel(const __nv_bfloat16* a, const int32_t* qweight, const __nv_bfloat16* scales,
                             const uint8_t* zeros, __nv_bfloat16* c, int m, int n, int k) {
    long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    int token = (int)(warp / n);
    int feature = (int)(warp % n);
    if (token >= m) return;
    int words = k / 8;
    int groups = k / kGroup;
    float sum = 0.0f;
    // TODO: each lane takes words w = lane, lane + 32, ... of row `feature` of qweight (row
    // stride k / 8); the word's group is g = w / 16 (scale and zero at feature * groups + g);
    // for i = 0..7 the weight of k index 8 * w + i is ((word >> (4 * i)) & 0xF) - zero, times the
    // scale, multiplied with a[token, 8 * w + i] and added to sum in float.
    // TODO: add the 32 partial sums with __shfl_down_sync; lane 0 writes __float2bfloat16(sum)
    // into c[token * n + feature].
}

// All pointers are device pointers. Launch on the default stream; do not synchronize.
extern "C" void solve(const __nv_bfloat16* a, const int32_t* qweight, const __nv_bfloat16* scales,
                      const uint8_t* zeros, __nv_bfloat16* c, int m, int n, int k) {
    long long warps = (long long)m * n;
    int threads = 256;
    long long blocks = (warps * 32 + threads - 1) / threads;
    w4a16_kernel<<<(unsigned)blocks, threads>>>(a, qweight, scales, zeros, c, m, n, k);
}
