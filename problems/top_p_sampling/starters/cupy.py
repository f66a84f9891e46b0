import cupy as cp

# probs, top_p and uniforms are float32 arrays, token_ids int32: the CUDA C++ kernel as a RawKernel.
top_p_kernel = cp.RawKernel(
    r"""
// One block of THREADS threads per row. Every probability is a multiple of 2^-20, so every sum
// over a row is exact in fp32 whatever the order the block adds in.
#define THREADS 256
#define WARPS (THREADS / 32)
#define UNIT (1.0f / 1048576.0f)

// Inclusive prefix sum over the block in thread order; *total gets the block's sum (every thread).
template <typename T>
__device__ T block_scan(T v, T* scratch, T* total) {
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int d = 1; d < 32; d *= 2) {
        T n = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += n;
    }
    __syncthreads();  // the previous call's readers are done with scratch
    if (lane == 31) scratch[warp] = v;
    __syncthreads();
    T offset = 0, sum = 0;
    for (int w = 0; w < WARPS; ++w) {
        if (w < warp) offset += scratch[w];
        sum += scratch[w];
    }
    *total = sum;
    return v + offset;
}

extern "C" __global__ void top_p_kernel(const float* probs, const float* top_p, const float* uniforms, int* token_ids, int vocab) {
    __shared__ float fscratch[WARPS];
    __shared__ int iscratch[WARPS];
    const float* row = probs + (long long)blockIdx.x * vocab;
    float p = top_p[blockIdx.x], u = uniforms[blockIdx.x];
    // TODO:
    // 1. The threshold t: bisect lo = 1, hi = 1 << 20 for the largest k whose mass (the sum of the
    //    row's probabilities >= k * UNIT, each thread a strided part, block_scan for the total)
    //    is still >= p; t = lo * UNIT, and `above` = the mass of the probabilities >= t + UNIT.
    // 2. Tiles of THREADS tokens in index order: token i is in the nucleus if x > t, or if x == t
    //    and above + t * (tokens == t before it) < p (block_scan of the x == t flags plus a carry).
    //    Add up the nucleus's mass S.
    // 3. The same tiles again: running = carry + block_scan(nucleus probabilities); the sample is
    //    the smallest nucleus index with running > u * S. Thread 0 writes it to token_ids[blockIdx.x].
}
""",
    "top_p_kernel",
)


def solve(probs, top_p, uniforms, token_ids, batch, vocab):
    top_p_kernel((batch,), (256,), (probs, top_p, uniforms, token_ids, cp.int32(vocab)))
