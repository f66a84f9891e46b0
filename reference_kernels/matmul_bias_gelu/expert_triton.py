"""Expert Triton solution for the fused bf16 GEMM + bias + GELU (obeys the submission contract).

The GEMM is the matmul expert's; the bias and the erf GELU are its epilogue, applied to the fp32
accumulators in registers right before the single bf16 store (the bias tile is loaded once per
program, masked to the columns that exist).

Classic tiled GEMM on tensor cores: each program owns a BLOCK_M x BLOCK_N tile of c, walks k in
BLOCK_K steps with tl.dot (wgmma on Hopper) and num_stages-deep software pipelining of the
loads. Programs are ordered in groups of GROUP_M tile-rows so that concurrently running programs
share tiles of a and b in L2. Row and column indices wrap (modulo m, n) instead of being masked,
which keeps the loads unpredicated; only the store is masked, and k is masked only when it is
not a multiple of BLOCK_K. Large problems autotune over a few Hopper configurations (keyed on
m, n, k); small ones use one configuration so correctness tests do not pay for tuning.

On the CPU interpreter (TRITON_INTERPRET=1, the INTERPRETED flag) tiles are converted to fp32
before tl.dot and the result is rounded to bf16 with integer ops, as the matmul expert does (the
interpreter as shipped multiplies bf16 tiles as raw 16-bit integers and truncates fp32 -> bf16).
"""

import torch
import triton
import triton.language as tl

_BIG = [
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
    triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=8),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=8),
]
_SMALL = triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=8)
_TUNE_ABOVE = 1 << 31  # m * n * k below this: one fixed configuration, no tuning runs


def _prune(configs, named_args, **kwargs):
    if named_args["m"] * named_args["n"] * named_args["k"] < _TUNE_ABOVE:
        return [_SMALL]
    return configs


@triton.jit
def _round_to_bf16(x):
    """fp32 -> bf16, round to nearest even, with integer ops (finite inputs)."""
    bits = x.to(tl.uint32, bitcast=True)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return bits.to(tl.uint16).to(tl.bfloat16, bitcast=True)


@triton.jit
def _linear_gelu_kernel(
    a_ptr,
    b_ptr,
    bias_ptr,
    c_ptr,
    m,
    n,
    k,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    EVEN_K: tl.constexpr,
    INTERPRETED: tl.constexpr,
):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(m, BLOCK_M)
    tiles_n = tl.cdiv(n, BLOCK_N)
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    group_rows = min(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_rows
    pid_n = (pid % per_group) // group_rows

    rows = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % m
    cols = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % n
    rows = tl.max_contiguous(tl.multiple_of(rows, BLOCK_M), BLOCK_M)
    cols = tl.max_contiguous(tl.multiple_of(cols, BLOCK_N), BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rows[:, None] * k + ks[None, :]
    b_ptrs = b_ptr + ks[:, None] * n + cols[None, :]

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for step in range(0, tl.cdiv(k, BLOCK_K)):
        if EVEN_K:
            a = tl.load(a_ptrs)
            b = tl.load(b_ptrs)
        else:
            left = k - step * BLOCK_K
            a = tl.load(a_ptrs, mask=ks[None, :] < left, other=0.0)
            b = tl.load(b_ptrs, mask=ks[:, None] < left, other=0.0)
        if INTERPRETED:  # noqa: SIM108 - constexpr branch, kept as a statement
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc)
        else:
            acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * n

    out_rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    out_cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (out_rows[:, None] < m) & (out_cols[None, :] < n)
    bias = tl.load(bias_ptr + out_cols, mask=out_cols < n, other=0.0).to(tl.float32)
    z = acc + bias[None, :]
    activated = 0.5 * z * (1.0 + tl.erf(z * 0.7071067811865476))
    if INTERPRETED:  # noqa: SIM108 - constexpr branch, kept as a statement
        out = _round_to_bf16(activated)
    else:
        out = activated.to(tl.bfloat16)
    tl.store(c_ptr + out_rows[:, None] * n + out_cols[None, :], out, mask=mask)


_linear_gelu_tuned = triton.autotune(
    configs=_BIG, key=["m", "n", "k"], prune_configs_by={"early_config_prune": _prune}
)(triton.heuristics({"EVEN_K": lambda args: args["k"] % args["BLOCK_K"] == 0})(_linear_gelu_kernel))


def _grid(meta):
    return (triton.cdiv(meta["m"], meta["BLOCK_M"]) * triton.cdiv(meta["n"], meta["BLOCK_N"]),)


def solve(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    if a.is_cuda:
        _linear_gelu_tuned[_grid](a, b, bias, c, m, n, k, INTERPRETED=False)
    else:
        meta = {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32, "GROUP_M": 4}
        grid = (triton.cdiv(m, 32) * triton.cdiv(n, 32),)
        _linear_gelu_kernel[grid](a, b, bias, c, m, n, k, EVEN_K=k % 32 == 0, INTERPRETED=True, **meta)
