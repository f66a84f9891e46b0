"""More cases of bench/interpreter_probe.py: integers, reductions and scans, atomics, memory and
launch constructs, and whole learner kernels (see interpreter_probe_cases.py for the helpers)."""

from __future__ import annotations

import torch
import triton

from bench import interpreter_probe_kernels as K
from bench.interpreter_probe_cases import Wrong, case, compare, dev, run_binary, same_error

# ---------------------------------------------------------------------------------------------
# integers: C semantics (division truncates toward zero, % takes the dividend's sign), wrapping


def signed_operands() -> tuple[torch.Tensor, torch.Tensor]:
    x = torch.randint(-1000, 1000, (128,), dtype=torch.int32)
    y = torch.randint(1, 40, (128,), dtype=torch.int32) * torch.where(torch.rand(128) < 0.5, -1, 1).int()
    return x, y


@case("integers", "int32 // and % of negatives (C semantics)")
def _int_div() -> str:
    x, y = signed_operands()
    compare(run_binary(x, y, "floordiv"), torch.div(x, y, rounding_mode="trunc"))
    return compare(run_binary(x, y, "mod"), torch.fmod(x, y))


@case("integers", "int32 <<, >> (arithmetic) and uint32 >> (logical)")
def _shifts() -> str:
    x, y = signed_operands()
    compare(run_binary(x, y.abs(), "shl"), x << (y.abs() & 15))
    compare(run_binary(x, y.abs(), "shr"), x >> (y.abs() & 15))
    u = torch.randint(0, 2**31 - 1, (128,), dtype=torch.int64) * 2 + 1
    got = run_binary(u.to(torch.uint32), y.abs().to(torch.uint32), "shr")
    return compare(got.to(torch.int64), u >> (y.abs().long() & 15))


@case("integers", "int32 overflow wraps")
def _wrap() -> str:
    x = torch.randint(-(2**31), 2**31 - 1, (64,), dtype=torch.int32)
    y = dev(torch.empty_like(x))
    K.int_kernel[(1,)](dev(x), y, 0, 64, OP="wrap_mul")
    want = ((x.long() * 65599 + 2**31) % 2**32 - 2**31).int()
    compare(y, want)
    K.int_kernel[(1,)](dev(x), y := dev(torch.empty_like(x)), 0, 64, OP="wrap_add")
    return compare(y, ((x.long() + 2147483000 + 2**31) % 2**32 - 2**31).int())


@case("integers", "int64 indexing, int arguments >= 2^31")
def _int64() -> str:
    x = torch.zeros(64, dtype=torch.int64)
    y = dev(torch.empty(64, dtype=torch.int64))
    K.int_kernel[(2,)](dev(x), y, 3_000_000_000, 64, OP="int64_index")
    compare(y, (3_000_000_000 + torch.arange(64)) >> 20)
    K.int_kernel[(1,)](dev(x), y, 5_000_000_000, 64, OP="scalar_arg_int64")
    return compare(y, 5_000_000_000 + torch.arange(64))


@case("integers", "tl.umulhi on int32 and uint32")
def _umulhi() -> str:
    x = torch.randint(-(2**31), 2**31 - 1, (128,), dtype=torch.int64)
    y = torch.randint(-(2**31), 2**31 - 1, (128,), dtype=torch.int64)
    # the high half of the unsigned 64-bit product (Python ints: it does not fit an int64)
    want = torch.tensor([((a % 2**32) * (b % 2**32)) >> 32 for a, b in zip(x.tolist(), y.tolist(), strict=True)])
    compare(run_binary(x.int(), y.int(), "umulhi").long() % 2**32, want)
    ux, uy = x % 2**32, y % 2**32
    got = run_binary(ux.to(torch.uint32), uy.to(torch.uint32), "umulhi")
    return compare(got.long() % 2**32, want)


# ---------------------------------------------------------------------------------------------
# reductions, scans, sort, histogram


def run_rows(kernel: triton.JITFunction, x: torch.Tensor, op: str, out: torch.dtype, per_row: bool) -> torch.Tensor:
    r, c = x.shape
    y = dev(torch.empty(r if per_row else r * c, dtype=out))
    kernel[(1,)](dev(x), y, r, c, OP=op)
    return y


REDUCE_CASES = {
    "sum": (lambda x: x.double().sum(1), 1e-5),
    "max": (lambda x: x.amax(1), 0.0),
    "min": (lambda x: x.amin(1), 0.0),
    "custom_sum": (lambda x: x.double().sum(1), 1e-5),
}
for _op, (_model, _tol) in REDUCE_CASES.items():
    for _dtype, _name in ((torch.float32, "fp32"), (torch.bfloat16, "bf16"), (torch.float16, "fp16")):

        @case("reductions", f"tl.{_op if _op != 'custom_sum' else 'reduce(custom add)'} over {_name}")
        def _reduce(op: str = _op, dtype: torch.dtype = _dtype, model=_model, tol: float = _tol) -> str:  # type: ignore[no-untyped-def]
            x = torch.randn(4, 64).to(dtype)
            got = run_rows(K.reduce_kernel, x, op, dtype, True)
            if dtype == torch.float32 or tol == 0:
                return compare(got, model(x), tol, tol)
            # 16-bit sums round at every combine, in an order the GPU chooses: allow a few
            # roundings of the summed magnitude.
            bound = 4 * 2**-8 * x.double().abs().sum(1)
            err = (got.cpu().double() - model(x)).abs()
            if (err > bound).any():
                raise Wrong(f"error {err.max().item():.3g} above {bound.min().item():.3g}")
            return f"max abs err {err.max().item():.2g}"


@case("reductions", "tl.sum over int32 (wraps)")
def _sum_int() -> str:
    x = torch.randint(2**28, 2**30, (4, 64), dtype=torch.int32)
    want = ((x.long().sum(1) + 2**31) % 2**32 - 2**31).int()
    return compare(run_rows(K.reduce_kernel, x, "sum", torch.int32, True), want)


@case("reductions", "tl.argmax / tl.argmin with ties (first index)")
def _argmax() -> str:
    x = torch.randint(0, 5, (4, 64)).float()
    compare(run_rows(K.reduce_kernel, x, "argmax", torch.int32, True), x.argmax(1).int())
    return compare(run_rows(K.reduce_kernel, x, "argmin", torch.int32, True), x.argmin(1).int())


@case("reductions", "tl.argmax over bf16")
def _argmax_bf16() -> str:
    x = torch.randn(4, 64).bfloat16()
    return compare(run_rows(K.reduce_kernel, x, "argmax", torch.int32, True), x.float().argmax(1).int())


@case("reductions", "tl.reduce with a (value, index) tuple combine")
def _reduce_tuple() -> str:
    x = torch.randint(0, 5, (4, 64)).float()
    return compare(run_rows(K.reduce_kernel, x, "max_index", torch.int32, True), x.argmax(1).int())


@case("reductions", "tl.xor_sum (int32)")
def _xor_sum() -> str:
    x = torch.randint(-(2**31), 2**31 - 1, (4, 64), dtype=torch.int32)
    want = x[:, 0].clone()
    for j in range(1, 64):
        want ^= x[:, j]
    return compare(run_rows(K.reduce_kernel, x, "xor_sum", torch.int32, True), want)


def wrapped_cumprod(x: torch.Tensor) -> torch.Tensor:
    """int32 products wrap at every step, as on the GPU."""
    out = []
    for row in x.tolist():
        acc, values = 1, []
        for v in row:
            acc = (acc * v + 2**31) % 2**32 - 2**31
            values.append(acc)
        out.append(values)
    return torch.tensor(out)


SCAN_CASES = {
    "cumsum": lambda x: x.double().cumsum(1),
    "cumsum_reverse": lambda x: x.double().flip(1).cumsum(1).flip(1),
    "cumprod": lambda x: x.double().cumprod(1),
    "scan_custom": lambda x: x.double().cumsum(1),
    "sort": lambda x: x.sort(1).values,
    "sort_desc": lambda x: x.sort(1, descending=True).values,
    "flip": lambda x: x.flip(1),
}
for _op, _model in SCAN_CASES.items():
    for _dtype, _name in ((torch.float32, "fp32"), (torch.bfloat16, "bf16"), (torch.int32, "int32")):

        @case("scans, sort", f"{_op} over {_name}")
        def _scan(op: str = _op, dtype: torch.dtype = _dtype, model=_model) -> str:  # type: ignore[no-untyped-def]
            if dtype == torch.int32:
                x = torch.randint(-50, 50, (4, 32), dtype=dtype)
            elif op == "cumprod":
                x = (1 + torch.randn(4, 32) * 0.05).to(dtype)
            else:
                x = torch.randn(4, 32).to(dtype)
            want = wrapped_cumprod(x) if (op, dtype) == ("cumprod", torch.int32) else model(x)
            if dtype == torch.int32:
                want = want.long()
            got = run_rows(K.scan_kernel, x, op, dtype, False).reshape(x.shape).cpu()
            if op in {"sort", "sort_desc", "flip"} or dtype == torch.int32:
                return compare(got, want)
            # Each combine rounds to the input's precision, in an order the GPU chooses: allow
            # a few roundings of the running magnitude.
            scale = model(x.abs()).abs() if op != "cumprod" else want.abs()
            ulp = 2**-24 if dtype == torch.float32 else 2**-8
            roundings = 32 if op == "cumprod" else 8  # one rounding per factor, 32 factors
            if ((got.double() - want.double()).abs() > roundings * ulp * scale + 1e-30).any():
                return compare(got, want, roundings * ulp, 0.0)
            return f"within {roundings} roundings"


@case("scans, sort", "tl.histogram (with and without mask)")
def _histogram() -> str:
    x = torch.randint(0, 16, (128,), dtype=torch.int32)
    h = dev(torch.empty(16, dtype=torch.int32))
    K.histogram_kernel[(1,)](dev(x), h, 128, 16, MASKED=False)
    compare(h, torch.bincount(x, minlength=16).int())
    K.histogram_kernel[(1,)](dev(x), h, 128, 16, MASKED=True)
    return compare(h, torch.bincount(x[:64], minlength=16).int())


# ---------------------------------------------------------------------------------------------
# atomics: every program updates the same few addresses, indices repeat within a block


def run_atomic(op: str, dtype: torch.dtype, masked: bool, programs: int = 3) -> tuple[torch.Tensor, torch.Tensor]:
    n = 64
    idx = torch.randint(0, 8, (n,), dtype=torch.int32)
    if dtype.is_floating_point:
        val = torch.randint(-20, 20, (n,)).to(dtype)  # small integers: every order sums exactly
    else:
        val = torch.randint(-(2**20), 2**20, (n,), dtype=dtype)
    target = torch.randint(-5, 5, (8,)).to(dtype)
    start = target.clone()
    target = dev(target)
    old = dev(torch.zeros(programs * n, dtype=dtype))
    K.atomic_kernel[(programs,)](target, dev(idx), dev(val), old, n, OP=op, MASKED=masked)
    keep = torch.arange(n) % 3 != 0 if masked else torch.ones(n, dtype=torch.bool)
    want = start.double() if dtype.is_floating_point else start.long()
    for _ in range(programs):
        for i in range(n):
            if not keep[i]:
                continue
            j, v = int(idx[i]), val[i].item()
            if op == "add":
                want[j] += v
            elif op == "max":
                want[j] = max(want[j].item(), v)
            elif op == "min":
                want[j] = min(want[j].item(), v)
            elif op == "and":
                want[j] = int(want[j]) & int(v)
            elif op == "or":
                want[j] = int(want[j]) | int(v)
    return target, want


for _op in ("add", "max", "min"):
    for _dtype, _name in (
        (torch.float32, "fp32"),
        (torch.int32, "int32"),
        (torch.float16, "fp16"),
        (torch.bfloat16, "bf16"),
    ):
        for _masked in (False, True):

            @case("atomics", f"atomic_{_op} {_name}{', masked' if _masked else ''}")
            def _atomic(op: str = _op, dtype: torch.dtype = _dtype, masked: bool = _masked) -> str:
                if op != "add" and dtype in (torch.float16, torch.bfloat16):
                    return same_error(lambda: run_atomic(op, dtype, masked), "does not support")
                got, want = run_atomic(op, dtype, masked)
                return compare(got, want)


for _op in ("and", "or"):

    @case("atomics", f"atomic_{_op} int32")
    def _atomic_bits(op: str = _op) -> str:
        got, want = run_atomic(op, torch.int32, False)
        return compare(got, want)


@case("atomics", "atomic_xchg (unique addresses), returned old values")
def _xchg() -> str:
    target = dev(torch.arange(64, dtype=torch.int32))
    idx, val = torch.arange(64, dtype=torch.int32), torch.arange(64, dtype=torch.int32) * 7
    old = dev(torch.zeros(64, dtype=torch.int32))
    K.atomic_kernel[(1,)](target, dev(idx), dev(val), old, 64, OP="xchg", MASKED=False)
    compare(old, torch.arange(64, dtype=torch.int32))
    return compare(target, val)


@case("atomics", "spin lock with atomic_cas / atomic_xchg")
def _lock() -> str:
    lock, counter = dev(torch.zeros(1, dtype=torch.int32)), dev(torch.zeros(1, dtype=torch.int32))
    K.lock_kernel[(8,)](lock, counter)
    compare(lock, torch.zeros(1, dtype=torch.int32))
    return compare(counter, torch.tensor([sum(range(1, 9))], dtype=torch.int32))


# ---------------------------------------------------------------------------------------------
# memory and launch constructs


@case("memory", "make_block_ptr, advance, boundary_check, padding_option")
def _block_ptr() -> str:
    x = torch.randn(37, 45)
    for padding in ("zero", "nan"):
        y = dev(torch.full((37, 45), -7.0))
        K.block_ptr_kernel[(triton.cdiv(37, 16),)](dev(x), y, 37, 45, BM=16, BN=16, PADDING=padding)
        compare(y, x + 1)
    return "exact"


@case("memory", "tl.make_tensor_descriptor (in-kernel) load/store")
def _descriptor() -> str:
    x = torch.randn(40, 48)
    y = dev(torch.full((40, 48), -7.0))
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device=DEVICE_OF(x)))
    K.descriptor_kernel[(triton.cdiv(40, 16),)](dev(x), y, 40, 48, BM=16, BN=16)
    return compare(y, x * 2)


def DEVICE_OF(x: torch.Tensor) -> torch.device:
    from bench import interpreter_probe_cases

    return interpreter_probe_cases.DEVICE


@case("memory", "host TensorDescriptor arguments")
def _host_descriptor() -> str:
    from triton.tools.tensor_descriptor import TensorDescriptor

    x, y = dev(torch.randn(40, 48)), dev(torch.full((40, 48), -7.0))
    xd, yd = TensorDescriptor.from_tensor(x, [16, 16]), TensorDescriptor.from_tensor(y, [16, 16])
    K.host_descriptor_kernel[(triton.cdiv(40, 16),)](xd, yd, 48, BM=16, BN=16)
    return compare(y, x * 2)


@case("memory", "eviction_policy, cache_modifier, volatile, multiple_of, max_contiguous, static_range, tl.range")
def _hints() -> str:
    x = torch.randn(200)
    for hint in ("none", "hints", "evict_last", "cache_cg", "volatile"):
        y = dev(torch.empty(200))
        K.load_hints_kernel[(triton.cdiv(200, 64),)](dev(x), y, 200, BLOCK=64, HINT=hint)
        compare(y, x * 8, 1e-6)
    return "exact"


@case("launch", "program_id / num_programs over 3 axes")
def _grid() -> str:
    nx, ny, nz = 3, 4, 2
    y = dev(torch.zeros(nx * ny * nz, dtype=torch.int32))
    K.grid_kernel[(nx, ny, nz)](y)
    return compare(y, torch.arange(nx * ny * nz, dtype=torch.int32) * 1000 + nz * 100 + ny * 10 + nx)


@case("launch", "num_warps= / num_stages= launch options")
def _launch_options() -> str:
    x = torch.randn(200)
    y = dev(torch.empty(200))
    K.load_hints_kernel[(4,)](dev(x), y, 200, BLOCK=64, HINT="none", num_warps=8, num_stages=4)
    return compare(y, x * 8, 1e-6)


@case("launch", "@triton.autotune over configs")
def _autotune() -> str:
    x = torch.randn(300)
    y = dev(torch.empty(300))
    K.autotuned()[lambda meta: (triton.cdiv(300, meta["BLOCK"]),)](dev(x), y, 300)
    return compare(y, x * 3)


@case("launch", "@triton.heuristics")
def _heuristics() -> str:
    x = torch.randn(200)
    y = dev(torch.empty(200))
    K.heuristics_kernel[(4,)](dev(x), y, 200, BLOCK=64)
    return compare(y, x + 1)


# ---------------------------------------------------------------------------------------------
# whole learner kernels


@case("learner kernels", "bf16 row softmax (max in bf16, exp in fp32)")
def _softmax_bf16() -> str:
    x = torch.randn(64).bfloat16()
    y = dev(torch.empty(64, dtype=torch.bfloat16))
    K.softmax_bf16_kernel[(1,)](dev(x), y, 64)
    return compare(y, torch.softmax(x.double(), 0), 2**-7, 1e-4)


@case("learner kernels", "bf16 rmsnorm (weights multiplied in bf16)")
def _rmsnorm_bf16() -> str:
    x, w = torch.randn(64).bfloat16(), torch.randn(64).bfloat16()
    y = dev(torch.empty(64, dtype=torch.bfloat16))
    K.rmsnorm_bf16_kernel[(1,)](dev(x), dev(w), y, 64, EPS=1e-6)
    xd = x.double()
    want = (xd * torch.rsqrt((xd * xd).mean() + 1e-6)).bfloat16().double() * w.double()
    if (y.cpu().double() - want).abs().max() > 0.05 * want.abs().max():
        raise Wrong(f"max error {(y.cpu().double() - want).abs().max().item():.3g}")
    return compare(y, want, 2**-7, 1e-3)


def run_shapes(x: torch.Tensor, op: str) -> torch.Tensor:
    r, c = x.shape
    y = dev(torch.empty(r, c, dtype=x.dtype))
    K.shapes_kernel[(1,)](dev(x), y, r, c, OP=op)
    return y


@case("shapes", "tl.gather, tl.join / tl.split, tl.interleave, tl.permute, tl.reshape")
def _shapes() -> str:
    x = torch.randn(4, 16)
    compare(run_shapes(x, "gather"), x.flip(1))
    compare(run_shapes(x, "join_split"), x * 3)
    compare(run_shapes(x, "interleave"), x)
    return compare(run_shapes(x, "permute"), x.reshape(4, 8, 2).permute(0, 2, 1).reshape(4, 16))


@case("bf16 elementwise", "bf16 with float literals, tl.full and tl.zeros in bf16")
def _bf16_literals() -> str:
    x = torch.randn(4, 16).bfloat16()
    return compare(run_shapes(x, "bf16_literals"), x * 0.5 + 1.25)
