// Compile error: the packed row's pointer shifted instead of the word it points to
// (`qrow >> 4 * i`): C++ has no shift of a pointer.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void w4a16_kernel(const __nv_bfloat16* a, const int32_t* qweight, const __nv_bfloat16* scales,
                             const uint8_t* zeros, __nv_bfloat16* c, int m, int n, int k) {
    int feature = blockIdx.x * blockDim.x + threadIdx.x;
    if (feature >= n) return;
    const int32_t* qrow = qweight + (long long)feature * (k / 8);
    int groups = k / 128;
    for (int token = 0; token < m; ++token) {
        float sum = 0.0f;
        for (int p = 0; p < k; ++p) {
            int i = p % 8;
            int q = (qrow + p / 8 >> 4 * i) & 0xF;
            int g = p / 128;
            sum += __bfloat162float(a[(long long)token * k + p]) *
                   ((float)(q - zeros[feature * groups + g]) * __bfloat162float(scales[feature * groups + g]));
        }
        c[(long long)token * n + feature] = __float2bfloat16(sum);
    }
}

extern "C" void solve(const __nv_bfloat16* a, const int32_t* qweight, const __nv_bfloat16* scales,
                      const uint8_t* zeros, __nv_bfloat16* c, int m, int n, int k) {
    w4a16_kernel<<<(n + 127) / 128, 128>>>(a, qweight, scales, zeros, c, m, n, k);
}
