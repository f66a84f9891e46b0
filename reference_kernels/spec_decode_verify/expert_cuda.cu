// Expert CUDA kernel for speculative decoding verification: a cluster of SLICES blocks per
// sequence, one launch, in integers.
//
// The work that matters is one row (a residual p_n - q_n, or the bonus row p_K), and it must be
// read twice: once for Z, once to draw. A block per sequence leaves the GPU idle at small batches,
// so each sequence gets a thread-block cluster (Hopper) of SLICES blocks, each owning a slice of
// the row. Every block redoes the num_draft tests (one warp, a ballot), adds up its slice's weight
// in integer units, and publishes it in shared memory; after a cluster barrier every block reads
// the others' sums through distributed shared memory, so each knows Z and whether w * Z falls in
// its slice. Only that block reads its slice again, and stops at the sample. No scratch memory and
// no second launch; the partial sums are exact integers, so exactly one block draws.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

#define SLICES 8  // blocks per sequence: the portable cluster size
#define THREADS 256
#define WARPS (THREADS / 32)
#define UNITS_F 1048576.0f

__device__ int block_scan(int v, int* scratch, int* total) {  // inclusive, thread order; *total: the sum
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int d = 1; d < 32; d *= 2) {
        int n = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += n;
    }
    __syncthreads();
    if (lane == 31) scratch[warp] = v;
    __syncthreads();
    int offset = 0, sum = 0;
    for (int w = 0; w < WARPS; ++w) {
        if (w < warp) offset += scratch[w];
        sum += scratch[w];
    }
    *total = sum;
    return v + offset;
}

__device__ int block_min(int v, int* scratch) {
    for (int d = 16; d > 0; d /= 2) v = min(v, __shfl_xor_sync(0xffffffffu, v, d));
    __syncthreads();
    if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
    __syncthreads();
    int m = scratch[0];
    for (int w = 1; w < WARPS; ++w) m = min(m, scratch[w]);
    return m;
}

__device__ __forceinline__ int units(float x) { return __float2int_rn(x * UNITS_F); }

// The weights of chunk j in units: tokens 4j .. 4j + 3 from 16-byte loads when vocab % 4 == 0,
// else token j alone; 0 past the end. q_row is null for the bonus row.
__device__ __forceinline__ void load_weights(const float* p_row, const float* q_row, int vocab, bool vec, int j,
                                             int d[4]) {
    d[0] = d[1] = d[2] = d[3] = 0;
    if (vec) {
        if (4 * j >= vocab) return;
        float4 p = reinterpret_cast<const float4*>(p_row)[j];
        d[0] = units(p.x), d[1] = units(p.y), d[2] = units(p.z), d[3] = units(p.w);
        if (q_row) {
            float4 q = reinterpret_cast<const float4*>(q_row)[j];
            d[0] = max(d[0] - units(q.x), 0), d[1] = max(d[1] - units(q.y), 0);
            d[2] = max(d[2] - units(q.z), 0), d[3] = max(d[3] - units(q.w), 0);
        }
    } else if (j < vocab) {
        d[0] = q_row ? max(units(p_row[j]) - units(q_row[j]), 0) : units(p_row[j]);
    }
}

__global__ void __cluster_dims__(SLICES, 1, 1) __launch_bounds__(THREADS)
    verify_kernel(const int* ids, const float* draft_probs, const float* target_probs, const float* accept_uniforms,
                  const float* sample_uniforms, int* num_accepted, int* next_token, int num_draft, int vocab) {
    cg::cluster_group cluster = cg::this_cluster();
    __shared__ int scratch[WARPS];
    __shared__ int accepted;
    __shared__ int slice_weight;
    const int slice = (int)cluster.block_rank();
    const long long seq = blockIdx.x / SLICES;
    if (threadIdx.x < 32) {  // lane i tests draft token i (num_draft <= 32)
        int i = threadIdx.x;
        bool rejects = false;
        if (i < num_draft) {
            long long at = seq * num_draft + i;
            int x = ids[at];
            float q = draft_probs[at * vocab + x];
            float p = target_probs[(seq * (num_draft + 1) + i) * vocab + x];
            rejects = !(accept_uniforms[at] * q < p);
        }
        unsigned rejections = __ballot_sync(0xffffffffu, rejects);
        if (i == 0) accepted = rejections ? __ffs(rejections) - 1 : num_draft;
    }
    __syncthreads();
    const int n = accepted;
    if (slice == 0 && threadIdx.x == 0) num_accepted[seq] = n;
    const float* p_row = target_probs + (seq * (num_draft + 1) + n) * vocab;
    const float* q_row = n < num_draft ? draft_probs + (seq * num_draft + n) * vocab : nullptr;
    const bool vec = (vocab & 3) == 0;
    const int chunks = vec ? vocab / 4 : vocab;
    const int per = (chunks + SLICES - 1) / SLICES;
    const int first = slice * per, last = min(chunks, first + per);
    int mine = 0, total, d[4];
    for (int j = first + threadIdx.x; j < last; j += THREADS) {
        load_weights(p_row, q_row, vocab, vec, j, d);
        mine += d[0] + d[1] + d[2] + d[3];
    }
    block_scan(mine, scratch, &total);
    if (threadIdx.x == 0) slice_weight = total;
    cluster.sync();
    int before = 0, z = 0;
    for (int r = 0; r < SLICES; ++r) {
        int w = *cluster.map_shared_rank(&slice_weight, r);
        if (r < slice) before += w;
        z += w;
    }
    cluster.sync();  // no block leaves while another may still read its slice_weight
    const double target = (double)sample_uniforms[seq] * (double)z;  // exact
    if (!((double)before <= target && target < (double)(before + total))) return;  // not this slice
    int carry = before;
    for (int base = first; base < last; base += THREADS) {
        int j = base + threadIdx.x;
        if (j < last) load_weights(p_row, q_row, vocab, vec, j, d);
        else d[0] = d[1] = d[2] = d[3] = 0;
        int sum = d[0] + d[1] + d[2] + d[3];
        int tile, running = carry + block_scan(sum, scratch, &tile) - sum;
        int hit = vocab;
        for (int e = 0; e < 4; ++e) {
            running += d[e];
            if (d[e] > 0 && (double)running > target && hit == vocab) hit = vec ? 4 * j + e : j;
        }
        hit = block_min(hit, scratch);
        if (hit < vocab) {  // the same in every thread: the block leaves together
            if (threadIdx.x == 0) next_token[seq] = hit;
            return;
        }
        carry += tile;
    }
}

// All pointers are device pointers. Launch on the default stream; do not synchronize.
extern "C" void solve(const int* draft_token_ids, const float* draft_probs, const float* target_probs,
                      const float* accept_uniforms, const float* sample_uniforms, int* num_accepted, int* next_token,
                      int batch, int num_draft, int vocab) {
    verify_kernel<<<batch * SLICES, THREADS>>>(draft_token_ids, draft_probs, target_probs, accept_uniforms,
                                               sample_uniforms, num_accepted, next_token, num_draft, vocab);
}
