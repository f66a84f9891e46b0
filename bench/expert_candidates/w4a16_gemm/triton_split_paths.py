"""W4A16 GEMM candidate: a split-K streaming path for decode and a tensor-core tile path for
prefill, picked by m in Python. Written for the H200; NOTHING here is measured on a GPU yet
(checked only in Triton's CPU interpreter): every speed claim below is an expectation.

Both paths compute the swapped product c^T = W a^T: the weight tile, dequantized in registers,
is the MMA's register operand (Hopper's wgmma takes its A operand from registers, its B operand
from shared memory), and the activations are the shared-memory operand, loaded as [k, tokens]
by pointer arithmetic. The dequantized weight never goes through shared or global memory.

Dequantization (shared by both paths) costs about three integer/float instructions a weight
and no int-to-float conversion: each nibble is moved to bits 16..19 and or-ed under the
exponent of 1.0, which makes the float 1 + q / 128 directly (nibble 4 needs no shift at all);
then x * (128 s) - (128 + z) s equals (q - z) s exactly (12-bit operands, so the product and
the difference are exact in fp32, and the result is exact in bf16 as the statement says).
Three levels of tl.join put the eight nibbles of a word next to each other in k order, so the
reshape to [rows, k] keeps each thread's eight values in its own registers.
Because the weight is fully dequantized (scale included), tl.dot accumulates into the same
fp32 accumulator over all of k: no second accumulator, no per-group rescale of the tile.

Decode (m <= 16): tokens padded to one 16-column tile, 64 features a program, one group of
128 k (16 contiguous words, 64 bytes a row) a step, evict-first on the words (each is used
once), a 4-deep software pipeline. k is split in whole groups so that about four programs per
SM stream the packed weight at once (m = 1: 224 feature tiles x 3 slices; m = 16: 64 x 9);
each slice writes fp32 partials and a second small kernel adds them in order and rounds once.
Where one slice is enough the first kernel stores bf16 directly (one launch).

Prefill: 128 features x 256 tokens a program, BLOCK_K 64 (half a group: the scale and zero
are one [128] vector per step), 8 warps, 3 stages (about 108 KB of shared memory for the
activation and word tiles), programs ordered in bands of 8 feature tiles that walk the token
tiles together so that a wave's weight and activation tiles are shared in L2.

What made the current expert (reference_kernels/w4a16_gemm/expert_triton.py) slow, as read
from its source (not profiled): it multiplies the integer weights and scales each group's
fp32 partial product after the dot, `acc += tl.dot(...) * scale`, which needs a second full
fp32 tile per group (128 extra registers a thread at 128 x 128 with 8 warps) and breaks the
MMA's in-place accumulation across groups; the weight tile is the B operand, so on Hopper it
is written to shared memory every step before the MMA can read it; its unpacking is a 3-D
broadcast shift and reshape whose layout Triton is free to spread across threads, then an
int-to-bf16 conversion per weight; and each step is a whole group of 128 k with a 128 x 128
activation tile (32 KB a stage), which limits the pipeline depth. At decode it pads tokens
to 16 as rows of a dot whose weight operand also goes through shared memory.

Compiled for sm_90 without a GPU (bench/compile_triton_sm90.py, Triton 3.6): both kernels use
wgmma and do not spill (decode 108 registers, prefill 252 and 112 KB of shared memory), where
the current expert's prefill kernel uses 255 registers and spills 936 bytes to the stack, which
fits the second accumulator tile described above.

Not yet measured on a GPU: the bandwidth reached by the decode path, the TFLOP/s of the
prefill path, whether Triton keeps the weight operand in registers for wgmma as intended,
and the split counts and tile sizes (the
constants below are first choices, not tuned).
"""

import torch
import triton
import triton.language as tl

GROUP = 128
DECODE_MAX_M = 16


@triton.jit
def _nibble_bits(words, i: tl.constexpr):
    """Nibble i of each word moved to bits 16..19 under the exponent of 1.0 (as int32 bits)."""
    if i < 4:
        t = words << (16 - 4 * i)
    elif i > 4:
        t = words >> (4 * i - 16)
    else:
        t = words
    return (t & 0xF0000) | 0x3F800000


@triton.jit
def _dequant(words, scale, zero, BLOCK_K: tl.constexpr, ROWS: tl.constexpr):
    """[ROWS, BLOCK_K // 8] int32 words -> [ROWS, BLOCK_K] bf16 weights (q - zero) * scale, in k order.

    Each nibble becomes the float 1 + q / 128 by an and/or (no int-to-float conversion); then
    x * (128 s) - (128 + z) s is (q - z) s computed exactly (12-bit operands), exact in bf16."""
    n0 = _nibble_bits(words, 0)
    n1 = _nibble_bits(words, 1)
    n2 = _nibble_bits(words, 2)
    n3 = _nibble_bits(words, 3)
    n4 = _nibble_bits(words, 4)
    n5 = _nibble_bits(words, 5)
    n6 = _nibble_bits(words, 6)
    n7 = _nibble_bits(words, 7)
    # three levels of join put nibble i = 4 a + 2 b + c at [..., a, b, c]: reshaping gives k order
    x0 = tl.join(tl.join(n0, n4), tl.join(n2, n6))
    x1 = tl.join(tl.join(n1, n5), tl.join(n3, n7))
    bits = tl.reshape(tl.join(x0, x1), (ROWS, BLOCK_K))
    x = bits.to(tl.float32, bitcast=True)
    s = scale.to(tl.float32)
    s128 = s * 128.0
    offset = (zero.to(tl.float32) + 128.0) * s
    return (x * s128[:, None] - offset[:, None]).to(tl.bfloat16)


@triton.jit
def _decode_kernel(a_ptr, qw_ptr, s_ptr, z_ptr, out_ptr, m, n, k, groups_per_split,
                   BLOCK_N: tl.constexpr, BLOCK_M: tl.constexpr, PARTIAL: tl.constexpr):  # fmt: skip
    """acc[features, tokens] = W[features, k-slice] @ a[tokens, k-slice]^T, a group per step."""
    pid_n = tl.program_id(0)
    split = tl.program_id(1)
    groups = k // 128
    features = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    feature_ok = features < n
    features = tl.where(feature_ok, features, 0).to(tl.int64)
    tokens = tl.arange(0, BLOCK_M)
    token_ok = tokens < m
    words_per_row = k // 8
    wcols = tl.arange(0, 16)
    kcols = tl.arange(0, 128)
    g_start = split * groups_per_split
    g_end = tl.minimum(g_start + groups_per_split, groups)
    acc = tl.zeros((BLOCK_N, BLOCK_M), dtype=tl.float32)
    for g in range(g_start, g_end):
        words = tl.load(
            qw_ptr + features[:, None] * words_per_row + (g * 16 + wcols)[None, :], eviction_policy="evict_first"
        )
        scale = tl.load(s_ptr + features * groups + g)
        zero = tl.load(z_ptr + features * groups + g)
        w = _dequant(words, scale, zero, 128, BLOCK_N)
        a_t = tl.load(a_ptr + tokens[None, :] * k + (g * 128 + kcols)[:, None], mask=token_ok[None, :], other=0.0)
        acc = tl.dot(w, a_t, acc)
    where = tokens[None, :] * n + features[:, None]
    keep = feature_ok[:, None] & token_ok[None, :]
    if PARTIAL:
        tl.store(out_ptr + split * m * n + where, acc, mask=keep)
    else:
        tl.store(out_ptr + where, acc.to(tl.bfloat16), mask=keep)


@triton.jit
def _sum_splits(part_ptr, c_ptr, total, splits, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    live = offsets < total
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for s in range(0, splits):
        acc += tl.load(part_ptr + s * total + offsets, mask=live, other=0.0)
    tl.store(c_ptr + offsets, acc.to(tl.bfloat16), mask=live)


@triton.jit
def _prefill_kernel(a_ptr, qw_ptr, s_ptr, z_ptr, c_ptr, m, n, k,
                    BLOCK_N: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr,
                    BAND: tl.constexpr):  # fmt: skip
    """acc[features, tokens] = W[features, :] @ a[tokens, :]^T: the dequantized weight is the
    register operand of the MMA, the activations the shared-memory one."""
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(n, BLOCK_N)
    tiles_m = tl.cdiv(m, BLOCK_M)
    per_band = BAND * tiles_m
    band = pid // per_band
    first = band * BAND
    band_rows = tl.minimum(tiles_n - first, BAND)
    tile_n = first + (pid % per_band) % band_rows
    tile_m = (pid % per_band) // band_rows
    features = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    feature_ok = features < n
    features = tl.where(feature_ok, features, 0).to(tl.int64)
    tokens = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    token_ok = tokens < m
    tokens = tl.where(token_ok, tokens, 0).to(tl.int64)
    groups = k // 128
    words_per_row = k // 8
    wcols = tl.arange(0, BLOCK_K // 8)
    kcols = tl.arange(0, BLOCK_K)
    w_ptrs = qw_ptr + features[:, None] * words_per_row + wcols[None, :]
    a_ptrs = a_ptr + tokens[None, :] * k + kcols[:, None]
    acc = tl.zeros((BLOCK_N, BLOCK_M), dtype=tl.float32)
    for kk in range(0, k, BLOCK_K):
        g = kk // 128
        words = tl.load(w_ptrs)
        scale = tl.load(s_ptr + features * groups + g)
        zero = tl.load(z_ptr + features * groups + g)
        a_t = tl.load(a_ptrs)
        w = _dequant(words, scale, zero, BLOCK_K, BLOCK_N)
        acc = tl.dot(w, a_t, acc)
        w_ptrs += BLOCK_K // 8
        a_ptrs += BLOCK_K
    tl.store(
        c_ptr + tokens[None, :] * n + features[:, None],
        acc.to(tl.bfloat16),
        mask=feature_ok[:, None] & token_ok[None, :],
    )


def _sm_count(device: torch.device) -> int:
    if device.type == "cuda":
        return torch.cuda.get_device_properties(device).multi_processor_count
    return 4


DECODE_BLOCK_N = 64
DECODE_PROGRAMS_PER_SM = 4
DECODE_WARPS = 4
DECODE_STAGES = 4
PREFILL = dict(BLOCK_N=128, BLOCK_M=256, BLOCK_K=64, BAND=8, num_warps=8, num_stages=3)


def solve(
    a: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor, zeros: torch.Tensor, c: torch.Tensor,
    m: int, n: int, k: int,
) -> None:  # fmt: skip
    groups = k // GROUP
    if m <= DECODE_MAX_M:
        block_n = DECODE_BLOCK_N
        tiles = triton.cdiv(n, block_n)
        splits = max(1, min(groups, triton.cdiv(DECODE_PROGRAMS_PER_SM * _sm_count(a.device), tiles)))
        groups_per_split = triton.cdiv(groups, splits)
        splits = triton.cdiv(groups, groups_per_split)
        partial = splits > 1
        out = torch.empty(splits, m, n, dtype=torch.float32, device=a.device) if partial else c
        _decode_kernel[(tiles, splits)](
            a, qweight, scales, zeros, out, m, n, k, groups_per_split,
            BLOCK_N=block_n, BLOCK_M=16, PARTIAL=partial, num_warps=DECODE_WARPS, num_stages=DECODE_STAGES,
        )  # fmt: skip
        if partial:
            total = m * n
            _sum_splits[(triton.cdiv(total, 1024),)](out, c, total, splits, BLOCK=1024, num_warps=4)
        return
    cfg = dict(PREFILL)
    if m <= 128:
        cfg["BLOCK_M"] = 64
    grid = (triton.cdiv(n, cfg["BLOCK_N"]) * triton.cdiv(m, cfg["BLOCK_M"]),)
    _prefill_kernel[grid](a, qweight, scales, zeros, c, m, n, k, **cfg)
