"""Small Triton kernels for bench/interpreter_probe.py: one construct each, selected by constexpr.

Kept in a file of their own because Triton reads kernel source from a real file, and so that the
probe's table code stays readable. Each kernel runs on one program unless the case says otherwise.
"""

from __future__ import annotations

import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, MODE: tl.constexpr,
               PRECISION: tl.constexpr, OUT: tl.constexpr):  # fmt: skip
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    if MODE == "trans_b":  # b is stored [N, K]
        b = tl.trans(tl.load(b_ptr + rn[:, None] * K + rk[None, :]))
    else:
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    if MODE == "acc" or MODE == "trans_b":
        acc = tl.zeros((M, N), dtype=tl.float32)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
    elif MODE == "out_fp16":
        acc = tl.dot(a, b, out_dtype=tl.float16)
    elif MODE == "int":
        acc = tl.dot(a, b)
    else:
        acc = tl.dot(a, b, input_precision=PRECISION)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(OUT))


@triton.jit
def cast_kernel(x_ptr, y_ptr, N: tl.constexpr, DST: tl.constexpr, ROUNDING: tl.constexpr, BITCAST: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(x_ptr + r)
    if BITCAST:
        y = x.to(DST, bitcast=True)
    elif ROUNDING == "":
        y = x.to(DST)
    else:
        y = x.to(DST, fp_downcast_rounding=ROUNDING)
    tl.store(y_ptr + r, y)


@triton.jit
def binary_kernel(x_ptr, y_ptr, z_ptr, N: tl.constexpr, OP: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(x_ptr + r)
    y = tl.load(y_ptr + r)
    if OP == "add":
        z = x + y
    elif OP == "sub":
        z = x - y
    elif OP == "mul":
        z = x * y
    elif OP == "div":
        z = x / y
    elif OP == "floordiv":
        z = x // y
    elif OP == "mod":
        z = x % y
    elif OP == "lt":
        z = (x < y).to(tl.int32)
    elif OP == "maximum":
        z = tl.maximum(x, y)
    elif OP == "minimum":
        z = tl.minimum(x, y)
    elif OP == "where":
        z = tl.where(x > y, x, y)
    elif OP == "fma":
        z = tl.fma(x, y, x)
    elif OP == "clamp":
        z = tl.clamp(x, -tl.abs(y), tl.abs(y))
    elif OP == "shl":
        z = x << (y & 15)
    elif OP == "shr":
        z = x >> (y & 15)
    elif OP == "umulhi":
        z = tl.umulhi(x, y)
    elif OP == "div_rn":
        z = tl.math.div_rn(x, y)
    elif OP == "fdiv":
        z = tl.math.fdiv(x, y)
    elif OP == "cdiv":
        z = tl.cdiv(x, y)
    elif OP == "pow":
        z = libdevice.pow(x, y)
    elif OP == "atan2":
        z = libdevice.atan2(x, y)
    else:
        tl.static_assert(False, "unknown op")
    tl.store(z_ptr + r, z)


@triton.jit
def unary_kernel(x_ptr, y_ptr, N: tl.constexpr, OP: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(x_ptr + r)
    if OP == "exp":
        y = tl.exp(x)
    elif OP == "exp2":
        y = tl.exp2(x)
    elif OP == "log":
        y = tl.log(x)
    elif OP == "log2":
        y = tl.log2(x)
    elif OP == "sqrt":
        y = tl.sqrt(x)
    elif OP == "sqrt_rn":
        y = tl.sqrt_rn(x)
    elif OP == "rsqrt":
        y = tl.rsqrt(x)
    elif OP == "sin":
        y = tl.sin(x)
    elif OP == "cos":
        y = tl.cos(x)
    elif OP == "erf":
        y = tl.erf(x)
    elif OP == "sigmoid":
        y = tl.sigmoid(x)
    elif OP == "abs":
        y = tl.abs(x)
    elif OP == "neg":
        y = -x
    elif OP == "floor":
        y = tl.floor(x)
    elif OP == "ceil":
        y = tl.ceil(x)
    elif OP == "gelu_erf":
        y = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    elif OP == "tanh":
        y = libdevice.tanh(x)
    elif OP == "libdevice_erf":
        y = libdevice.erf(x)
    elif OP == "libdevice_exp":
        y = libdevice.exp(x)
    elif OP == "fast_expf":
        y = libdevice.fast_expf(x)
    elif OP == "log1p":
        y = libdevice.log1p(x)
    elif OP == "rint":
        y = libdevice.rint(x)
    elif OP == "isnan":
        y = libdevice.isnan(x).to(tl.float32)
    elif OP == "popc":
        y = libdevice.popc(x)
    elif OP == "inline_asm":
        y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.int32, is_pure=True, pack=1)
    else:
        tl.static_assert(False, "unknown op")
    tl.store(y_ptr + r, y)


@triton.jit
def _max_with_index(v1, i1, v2, i2):
    take_left = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(take_left, v1, v2), tl.where(take_left, i1, i2)


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def reduce_kernel(x_ptr, y_ptr, R: tl.constexpr, C: tl.constexpr, OP: tl.constexpr):
    rows = tl.arange(0, R)
    cols = tl.arange(0, C)
    x = tl.load(x_ptr + rows[:, None] * C + cols[None, :])
    if OP == "sum":
        y = tl.sum(x, axis=1)
    elif OP == "max":
        y = tl.max(x, axis=1)
    elif OP == "min":
        y = tl.min(x, axis=1)
    elif OP == "argmax":
        y = tl.argmax(x, axis=1)
    elif OP == "argmin":
        y = tl.argmin(x, axis=1)
    elif OP == "max_index":
        _, y = tl.reduce((x, tl.broadcast_to(cols[None, :], (R, C))), 1, _max_with_index)
    elif OP == "custom_sum":
        y = tl.reduce(x, 1, _add)
    elif OP == "xor_sum":
        y = tl.xor_sum(x, axis=1)
    else:
        tl.static_assert(False, "unknown op")
    tl.store(y_ptr + rows, y)


@triton.jit
def scan_kernel(x_ptr, y_ptr, R: tl.constexpr, C: tl.constexpr, OP: tl.constexpr):
    rows = tl.arange(0, R)
    cols = tl.arange(0, C)
    offs = rows[:, None] * C + cols[None, :]
    x = tl.load(x_ptr + offs)
    if OP == "cumsum":
        y = tl.cumsum(x, axis=1)
    elif OP == "cumsum_reverse":
        y = tl.cumsum(x, axis=1, reverse=True)
    elif OP == "cumprod":
        y = tl.cumprod(x, axis=1)
    elif OP == "scan_custom":
        y = tl.associative_scan(x, 1, _add)
    elif OP == "sort":
        y = tl.sort(x, dim=1)
    elif OP == "sort_desc":
        y = tl.sort(x, dim=1, descending=True)
    elif OP == "flip":
        y = tl.flip(x, dim=1)
    else:
        tl.static_assert(False, "unknown op")
    tl.store(y_ptr + offs, y)


@triton.jit
def histogram_kernel(x_ptr, h_ptr, N: tl.constexpr, BINS: tl.constexpr, MASKED: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(x_ptr + r)
    h = tl.histogram(x, BINS, mask=r < N // 2) if MASKED else tl.histogram(x, BINS)
    tl.store(h_ptr + tl.arange(0, BINS), h)


@triton.jit
def atomic_kernel(target_ptr, idx_ptr, val_ptr, old_ptr, N: tl.constexpr, OP: tl.constexpr, MASKED: tl.constexpr):
    """Every program applies N updates at target[idx[i]] (indices repeat within a block)."""
    r = tl.arange(0, N)
    idx = tl.load(idx_ptr + r)
    val = tl.load(val_ptr + r)
    mask = (r % 3 != 0) if MASKED else (r >= 0)
    if OP == "add":
        old = tl.atomic_add(target_ptr + idx, val, mask=mask)
    elif OP == "max":
        old = tl.atomic_max(target_ptr + idx, val, mask=mask)
    elif OP == "min":
        old = tl.atomic_min(target_ptr + idx, val, mask=mask)
    elif OP == "xchg":
        old = tl.atomic_xchg(target_ptr + idx, val, mask=mask)
    elif OP == "and":
        old = tl.atomic_and(target_ptr + idx, val, mask=mask)
    elif OP == "or":
        old = tl.atomic_or(target_ptr + idx, val, mask=mask)
    else:
        tl.static_assert(False, "unknown op")
    tl.store(old_ptr + tl.program_id(0) * N + r, old, mask=mask)


@triton.jit
def lock_kernel(lock_ptr, counter_ptr):
    """A spin lock around a read-modify-write: atomic_cas to take it, atomic_xchg to free it."""
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    value = tl.load(counter_ptr)
    tl.store(counter_ptr, value + tl.program_id(0) + 1)
    tl.atomic_xchg(lock_ptr, 0)


@triton.jit
def block_ptr_kernel(x_ptr, y_ptr, m, n, BM: tl.constexpr, BN: tl.constexpr, PADDING: tl.constexpr):
    """Copies x [m, n] into y tile by tile along n with make_block_ptr and advance."""
    row0 = tl.program_id(0) * BM
    src = tl.make_block_ptr(x_ptr, shape=(m, n), strides=(n, 1), offsets=(row0, 0), block_shape=(BM, BN),
                            order=(1, 0))  # fmt: skip
    dst = tl.make_block_ptr(y_ptr, shape=(m, n), strides=(n, 1), offsets=(row0, 0), block_shape=(BM, BN),
                            order=(1, 0))  # fmt: skip
    for _ in range(0, tl.cdiv(n, BN)):
        if PADDING == "nan":
            tile = tl.load(src, boundary_check=(0, 1), padding_option="nan")
        else:
            tile = tl.load(src, boundary_check=(0, 1), padding_option="zero")
        tl.store(dst, tile + 1.0, boundary_check=(0, 1))
        src = tl.advance(src, (0, BN))
        dst = tl.advance(dst, (0, BN))


@triton.jit
def descriptor_kernel(x_ptr, y_ptr, m, n, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, shape=[m, n], strides=[n, 1], block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(y_ptr, shape=[m, n], strides=[n, 1], block_shape=[BM, BN])
    row0 = tl.program_id(0) * BM
    for col0 in range(0, n, BN):
        tile = src.load([row0, col0])
        dst.store([row0, col0], tile * 2.0)


@triton.jit
def host_descriptor_kernel(x_desc, y_desc, n, BM: tl.constexpr, BN: tl.constexpr):
    row0 = tl.program_id(0) * BM
    for col0 in range(0, n, BN):
        tile = x_desc.load([row0, col0])
        y_desc.store([row0, col0], tile * 2.0)


@triton.jit
def load_hints_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, HINT: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if HINT == "hints":
        offs = tl.max_contiguous(tl.multiple_of(offs, BLOCK), BLOCK)
    mask = offs < n
    if HINT == "evict_last":
        x = tl.load(x_ptr + offs, mask=mask, other=0.0, eviction_policy="evict_last")
    elif HINT == "cache_cg":
        x = tl.load(x_ptr + offs, mask=mask, other=0.0, cache_modifier=".cg")
    elif HINT == "volatile":
        x = tl.load(x_ptr + offs, mask=mask, other=0.0, volatile=True)
    else:
        x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.static_range(3):
        acc += x * (i + 1)
    for _j in tl.range(0, 2, num_stages=2):
        acc += x
    tl.store(y_ptr + offs, acc, mask=mask, cache_modifier=".cs" if HINT == "cache_cg" else "")


@triton.jit
def grid_kernel(y_ptr):
    x = tl.program_id(0)
    y = tl.program_id(1)
    z = tl.program_id(2)
    nx = tl.num_programs(0)
    ny = tl.num_programs(1)
    flat = (z * ny + y) * nx + x
    tl.store(y_ptr + flat, flat * 1000 + tl.num_programs(2) * 100 + ny * 10 + nx)


@triton.jit
def int_kernel(x_ptr, y_ptr, big, N: tl.constexpr, OP: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(x_ptr + r)
    if OP == "wrap_mul":
        y = x * 65599
    elif OP == "wrap_add":
        y = x + 2147483000
    elif OP == "int64_index":
        y = (tl.program_id(0).to(tl.int64) * big + r).to(tl.int64) >> 20
    elif OP == "scalar_arg_int64":
        y = big + r.to(tl.int64)
    else:
        tl.static_assert(False, "unknown op")
    tl.store(y_ptr + r, y)


def autotuned() -> triton.runtime.Autotuner:
    """An autotuned copy kernel (built on demand so that importing this file runs nothing)."""

    @triton.autotune(
        configs=[triton.Config({"BLOCK": 32}, num_warps=1), triton.Config({"BLOCK": 64}, num_warps=2, num_stages=3)],
        key=["n"],
    )
    @triton.jit
    def autotuned_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 3.0, mask=offs < n)

    return autotuned_kernel


@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def heuristics_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(y_ptr + offs, tl.load(x_ptr + offs) + 1.0)
    else:
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)


@triton.jit
def softmax_bf16_kernel(x_ptr, y_ptr, N: tl.constexpr):
    """A learner's bf16 row softmax: max and sum in the input dtype, exp after widening."""
    r = tl.arange(0, N)
    x = tl.load(x_ptr + r)
    shifted = x - tl.max(x, axis=0)
    e = tl.exp(shifted.to(tl.float32))
    tl.store(y_ptr + r, (e / tl.sum(e, axis=0)).to(tl.bfloat16))


@triton.jit
def rmsnorm_bf16_kernel(x_ptr, w_ptr, y_ptr, N: tl.constexpr, EPS: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(x_ptr + r).to(tl.float32)
    w = tl.load(w_ptr + r)
    rms = tl.rsqrt(tl.sum(x * x, axis=0) / N + EPS)
    tl.store(y_ptr + r, (x * rms).to(tl.bfloat16) * w)


@triton.jit
def dot_scaled_kernel(a_ptr, s_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    scale = tl.load(s_ptr + rm[:, None] * (K // 32) + tl.arange(0, K // 32)[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.dot_scaled(a, scale, "e4m3", b, None, "bf16")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


@triton.jit
def directed_rounding_kernel(x_ptr, y_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    tl.store(y_ptr + r, libdevice.float2int_rd(tl.load(x_ptr + r)))


@triton.jit
def shapes_kernel(x_ptr, y_ptr, R: tl.constexpr, C: tl.constexpr, OP: tl.constexpr):
    rows = tl.arange(0, R)
    cols = tl.arange(0, C)
    x = tl.load(x_ptr + rows[:, None] * C + cols[None, :])
    if OP == "gather":
        idx = (C - 1 - cols)[None, :] + tl.zeros((R, C), dtype=tl.int32)
        y = tl.gather(x, idx, axis=1)
    elif OP == "join_split":
        a, b = tl.split(tl.join(x, x * 2))
        y = a + b
    elif OP == "interleave":
        y = tl.reshape(tl.interleave(x, x), (R, 2 * C))
        y = tl.reshape(y, (R, C, 2))
        y, _ = tl.split(y)
    elif OP == "permute":
        y = tl.reshape(tl.permute(tl.reshape(x, (R, C // 2, 2)), (0, 2, 1)), (R, C))
    elif OP == "bf16_literals":
        y = x * 0.5 + tl.full((R, C), 1.25, tl.bfloat16) + tl.zeros((R, C), dtype=tl.bfloat16)
    else:
        tl.static_assert(False, "unknown op")
    tl.store(y_ptr + rows[:, None] * C + cols[None, :], y)
