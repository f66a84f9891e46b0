// Rung 1: the first scan most people write. One element per thread, 1024 threads per block: the
// block scans its tile in shared memory with Hillis-Steele steps (at step d every element adds
// the one d places before it; double-buffered, a barrier per step, 10 steps) and stores the tile
// total. The totals are scanned the same way (recursively), then every tile but the first adds
// the inclusive sum of the tiles before it.
#include <cuda_runtime.h>

constexpr int TILE = 1024;

__global__ void scan_tiles(const float* __restrict__ x, float* __restrict__ y, float* __restrict__ totals, int n) {
    __shared__ float buf[2][TILE];
    const long long i = (long long)blockIdx.x * TILE + threadIdx.x;
    int cur = 0;
    buf[cur][threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int offset = 1; offset < TILE; offset <<= 1) {
        float v = buf[cur][threadIdx.x];
        if (threadIdx.x >= offset) v += buf[cur][threadIdx.x - offset];
        buf[cur ^ 1][threadIdx.x] = v;
        cur ^= 1;
        __syncthreads();
    }
    if (i < n) y[i] = buf[cur][threadIdx.x];
    if (threadIdx.x == TILE - 1) totals[blockIdx.x] = buf[cur][TILE - 1];
}

__global__ void add_carries(float* __restrict__ y, const float* __restrict__ scanned_totals, int n) {
    const int tile = blockIdx.x + 1;  // tile 0 has nothing before it
    const long long i = (long long)tile * TILE + threadIdx.x;
    if (i < n) y[i] += scanned_totals[tile - 1];
}

// Floats of scratch a scan of n values needs: its tile totals, their scan, and the same again
// for the scan of the totals.
static size_t scratch_for(int n) {
    const int tiles = (n + TILE - 1) / TILE;
    return tiles > 1 ? 2 * (size_t)tiles + scratch_for(tiles) : 1;
}

static void scan(const float* x, float* y, int n, float* work) {
    const int tiles = (n + TILE - 1) / TILE;
    float* totals = work;
    scan_tiles<<<tiles, TILE>>>(x, y, totals, n);
    if (tiles > 1) {
        float* scanned_totals = work + tiles;
        scan(totals, scanned_totals, tiles, work + 2 * (size_t)tiles);
        add_carries<<<tiles - 1, TILE>>>(y, scanned_totals, n);
    }
}

static float* scratch = nullptr;
static size_t scratch_floats = 0;

extern "C" void solve(const float* x, float* y, int n) {
    const size_t need = scratch_for(n);
    if (need > scratch_floats) {
        if (scratch) cudaFree(scratch);
        cudaMalloc(&scratch, need * sizeof(float));
        scratch_floats = need;
    }
    scan(x, y, n, scratch);
}
