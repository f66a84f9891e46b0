// Wrong answer on k > 32: a warp per row whose merge keeps rank r in lane r's register and
// writes all ranks at the end, one per lane. A warp has 32 lanes, so ranks 32 to 63 are found
// and dropped: for k = 50 or 64 the tail of every row keeps the judge's poison.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int MAX_K = 64;
constexpr int WARPS = 4;

__device__ __forceinline__ unsigned long long make_key(float v, int col) {
    const uint32_t u = __float_as_uint(v);
    const uint32_t ordered = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    return (static_cast<unsigned long long>(ordered) << 32) | (0xFFFFFFFFu - static_cast<uint32_t>(col));
}

__global__ void topk_warp_lists(const float* x, float* values, int* indices, int m, int n, int k) {
    const int lane = threadIdx.x & 31;
    const long long row = static_cast<long long>(blockIdx.x) * WARPS + threadIdx.x / 32;
    if (row >= m) return;
    const float* xr = x + row * n;
    float best[MAX_K];
    int where[MAX_K];
    int count = 0;
    for (int j = lane; j < n; j += 32) {
        const float v = xr[j];
        if (count == k && !(v > best[k - 1])) continue;
        int pos = count < k ? count++ : k - 1;
        while (pos > 0 && best[pos - 1] < v) {
            best[pos] = best[pos - 1];
            where[pos] = where[pos - 1];
            --pos;
        }
        best[pos] = v;
        where[pos] = j;
    }
    int head = 0;
    float my_value = 0.0f;
    int my_column = 0;
    for (int r = 0; r < k; ++r) {
        const unsigned long long mine = head < count ? make_key(best[head], where[head]) : 0ull;
        unsigned long long top = mine;
        for (int offset = 16; offset > 0; offset >>= 1) {
            const unsigned long long other = __shfl_xor_sync(0xffffffffu, top, offset);
            top = other > top ? other : top;
        }
        const int owner = __ffs(__ballot_sync(0xffffffffu, head < count && mine == top)) - 1;
        const float value = __shfl_sync(0xffffffffu, head < count ? best[head] : 0.0f, owner);
        const int column = __shfl_sync(0xffffffffu, head < count ? where[head] : 0, owner);
        if (lane == owner) ++head;
        if (r == lane) {  // rank r kept by lane r: there is no lane 32
            my_value = value;
            my_column = column;
        }
    }
    if (lane < k) {
        values[row * k + lane] = my_value;
        indices[row * k + lane] = my_column;
    }
}

extern "C" void solve(const float* x, float* values, int* indices, int m, int n, int k) {
    topk_warp_lists<<<(m + WARPS - 1) / WARPS, 32 * WARPS>>>(x, values, indices, m, n, k);
}
