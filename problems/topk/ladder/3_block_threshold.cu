// Ladder rung 3: a block per row and a threshold. 256 threads stream the row; each element
// becomes a 64-bit key (ordered value above, 0xFFFFFFFF - column below: distinct keys, ordered
// like the ranking) and is appended to a shared-memory buffer only when it beats `floor`, the
// k-th best key seen so far. When the buffer holds 1024 keys or more it is sorted (bitonic,
// descending), cut to the top k, and the floor rises to the k-th key; after the first chunk
// almost nothing passes. At the end the buffer is sorted once more and its first k written.
#include <cuda_runtime.h>
#include <stdint.h>

typedef unsigned long long Key;
constexpr int THREADS = 256;
constexpr int CHUNK = 4 * THREADS;     // elements read between two decisions
constexpr int CAPACITY = 2 * CHUNK;    // keys in the shared buffer

__device__ __forceinline__ Key make_key(float v, int col) {
    const uint32_t u = __float_as_uint(v);
    const uint32_t ordered = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    return (static_cast<Key>(ordered) << 32) | (0xFFFFFFFFu - static_cast<uint32_t>(col));
}

__device__ __forceinline__ float key_value(Key key) {
    const uint32_t ordered = static_cast<uint32_t>(key >> 32);
    return __uint_as_float((ordered & 0x80000000u) ? (ordered & 0x7FFFFFFFu) : ~ordered);
}

// Sorts buf[0, count) in descending order, padding to a power of two with key 0 (below all).
__device__ void sort_descending(Key* buf, int count) {
    int size_all = 1;
    while (size_all < count) size_all <<= 1;
    for (int i = count + threadIdx.x; i < size_all; i += THREADS) buf[i] = 0ull;
    __syncthreads();
    for (int size = 2; size <= size_all; size <<= 1) {
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            for (int i = threadIdx.x; i < (size_all >> 1); i += THREADS) {
                const int lo = 2 * i - (i & (stride - 1));
                const int hi = lo + stride;
                const Key a = buf[lo], b = buf[hi];
                if ((a < b) == ((lo & size) == 0)) {
                    buf[lo] = b;
                    buf[hi] = a;
                }
            }
            __syncthreads();
        }
    }
}

__global__ void topk_block_threshold(const float* x, float* values, int* indices, int n, int k) {
    __shared__ Key buf[CAPACITY];
    __shared__ int count;
    __shared__ Key floor_key;
    const long long row = blockIdx.x;
    const float* xr = x + row * n;
    if (threadIdx.x == 0) {
        count = 0;
        floor_key = 0ull;
    }
    __syncthreads();
    for (int base = 0; base < n; base += CHUNK) {
        const Key floor_now = floor_key;
        for (int j = base + threadIdx.x; j < base + CHUNK && j < n; j += THREADS) {
            const Key key = make_key(xr[j], j);
            if (key > floor_now) buf[atomicAdd(&count, 1)] = key;
        }
        __syncthreads();
        const int held = count;
        if (held >= CAPACITY - CHUNK) {
            sort_descending(buf, held);
            if (threadIdx.x == 0) {
                count = k;
                floor_key = buf[k - 1];
            }
        }
        __syncthreads();
    }
    sort_descending(buf, count);
    for (int r = threadIdx.x; r < k; r += THREADS) {
        values[row * k + r] = key_value(buf[r]);
        indices[row * k + r] = static_cast<int>(0xFFFFFFFFu - static_cast<uint32_t>(buf[r]));
    }
}

// All pointers are device pointers. Launch on the default stream; do not synchronize.
extern "C" void solve(const float* x, float* values, int* indices, int m, int n, int k) {
    topk_block_threshold<<<m, THREADS>>>(x, values, indices, n, k);
}
