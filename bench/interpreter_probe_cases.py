"""The cases of bench/interpreter_probe.py: each runs one kernel and compares it with a torch model
of what the GPU computes. A case returns a short detail when right and raises Wrong otherwise."""

from __future__ import annotations

from collections.abc import Callable

import torch
import triton.language as tl

from bench import interpreter_probe_kernels as K

DEVICE = torch.device("cpu")
CASES: list[tuple[str, str, Callable[[], str]]] = []


class Wrong(Exception):
    pass


class SameError(Exception):
    """Triton refuses the construct on a GPU as well (a rule of the language, not the interpreter)."""


def case(group: str, construct: str) -> Callable[[Callable[[], str]], Callable[[], str]]:
    def register(fn: Callable[[], str]) -> Callable[[], str]:
        CASES.append((group, construct, fn))
        return fn

    return register


def dev(x: torch.Tensor) -> torch.Tensor:
    return x.to(DEVICE)


def compare(got: torch.Tensor, want: torch.Tensor, rtol: float = 0.0, atol: float = 0.0) -> str:
    got, want = got.cpu(), want.cpu()
    if got.shape != want.shape:
        raise Wrong(f"shape {tuple(got.shape)}, want {tuple(want.shape)}")
    if want.dtype.is_floating_point or got.dtype.is_floating_point:
        g, w = got.double(), want.double()
        bad = ~torch.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
        finite = torch.isfinite(w) & torch.isfinite(g)
        err = (g - w).abs()[finite].max().item() if finite.any() else 0.0
    else:
        g, w = got.long(), want.long()
        bad = g != w
        err = 0.0
    if bad.any():
        i = int(bad.reshape(-1).nonzero()[0])
        raise Wrong(
            f"{int(bad.sum())} of {bad.numel()} differ; e.g. want {w.reshape(-1)[i].item():.6g}, "
            f"got {g.reshape(-1)[i].item():.6g}"
        )
    return "exact" if err == 0 else f"max abs err {err:.2g}"


def same_error(fn: Callable[[], object], needle: str) -> str:
    """The construct must fail with a message containing `needle`, as it does on a GPU."""
    try:
        fn()
    except Exception as exc:
        if needle in str(exc):
            raise SameError(f"refused as on a GPU: {needle}") from None
        raise
    raise Wrong(f"ran, but Triton refuses it on a GPU ({needle})")


# ---------------------------------------------------------------------------------------------
# tl.dot


def run_dot(a: torch.Tensor, b: torch.Tensor, mode: str, precision: str, out: torch.dtype, n: int) -> torch.Tensor:
    m, k = a.shape
    c = dev(torch.empty(m, n, dtype=out))
    out_tl = {torch.float32: tl.float32, torch.bfloat16: tl.bfloat16, torch.float16: tl.float16,
              torch.int32: tl.int32}[out]  # fmt: skip
    K.dot_kernel[(1,)](dev(a), dev(b), c, m, n, k, MODE=mode, PRECISION=precision, OUT=out_tl)
    return c


def exact_product(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a.double() @ b.double()


for _dtype, _name in ((torch.bfloat16, "bf16"), (torch.float16, "fp16")):

    @case("tl.dot", f"{_name} tiles, acc= (fp32 accumulator)")
    def _dot_acc(dtype: torch.dtype = _dtype) -> str:
        a, b = torch.randn(16, 32).to(dtype), torch.randn(32, 16).to(dtype)
        return compare(run_dot(a, b, "acc", "tf32", torch.float32, 16), exact_product(a, b), 1e-5, 1e-5)

    @case("tl.dot", f"{_name} tiles, result stored as {_name}")
    def _dot_store(dtype: torch.dtype = _dtype) -> str:
        a, b = torch.randn(16, 32).to(dtype), torch.randn(32, 16).to(dtype)
        return compare(run_dot(a, b, "plain", "tf32", dtype, 16), exact_product(a, b).to(dtype), 2**-7, 1e-3)

    @case("tl.dot", f"{_name} tiles, tl.trans(b)")
    def _dot_trans(dtype: torch.dtype = _dtype) -> str:
        a, bt = torch.randn(16, 32).to(dtype), torch.randn(16, 32).to(dtype)
        return compare(run_dot(a, bt, "trans_b", "tf32", torch.float32, 16), exact_product(a, bt.T), 1e-5, 1e-5)


@case("tl.dot", "fp16 tiles, out_dtype=fp16")
def _dot_fp16_out() -> str:
    a, b = torch.randn(16, 32).half(), torch.randn(32, 16).half()
    return compare(run_dot(a, b, "out_fp16", "tf32", torch.float16, 16), exact_product(a, b), 1e-2, 2e-2)


def tf32(x: torch.Tensor, nearest: bool = False) -> torch.Tensor:
    """fp32 as TensorFloat-32 (10 mantissa bits): truncated, or rounded to nearest (cvt.rna)."""
    bits = x.view(torch.int32).long() % 2**32
    if nearest:
        bits = bits + 0x1000
    return (bits & 0xFFFFE000).to(torch.uint32).view(torch.float32)


for _precision in ("ieee", "tf32x3", "tf32"):

    @case("tl.dot", f"fp32 tiles, input_precision={_precision}")
    def _dot_fp32(precision: str = _precision) -> str:
        a, b = torch.randn(16, 32), torch.randn(32, 16)
        if precision == "tf32":  # the tensor cores see 10 mantissa bits of each operand
            got = run_dot(a, b, "acc", precision, torch.float32, 16).cpu().double()
            for model, name in ((exact_product(a, b), "full fp32"),
                                (exact_product(tf32(a, nearest=True), tf32(b, nearest=True)), "TF32 rounded to nearest")):  # fmt: skip
                if torch.allclose(got, model, rtol=1e-5, atol=1e-5):
                    raise Wrong(f"matches {name}, not TF32 truncation")
            return compare(got, exact_product(tf32(a), tf32(b)), 1e-5, 1e-5) + " (TF32 truncation)"
        return compare(run_dot(a, b, "acc", precision, torch.float32, 16), exact_product(a, b), 1e-5, 1e-5)


@case("tl.dot", "int8 tiles (int32 result)")
def _dot_int8() -> str:
    a, b = torch.randint(-128, 128, (16, 32), dtype=torch.int8), torch.randint(-128, 128, (32, 16), dtype=torch.int8)
    return compare(run_dot(a, b, "int", "tf32", torch.int32, 16), a.long() @ b.long())


for _f8, _f8name in ((torch.float8_e4m3fn, "fp8e4nv"), (torch.float8_e5m2, "fp8e5")):

    @case("tl.dot", f"{_f8name} tiles (fp32 result)")
    def _dot_fp8(dtype: torch.dtype = _f8) -> str:
        a, b = torch.randn(16, 32).to(dtype), torch.randn(32, 16).to(dtype)
        return compare(
            run_dot(a, b, "plain", "tf32", torch.float32, 16), exact_product(a.float(), b.float()), 1e-5, 1e-5
        )


# ---------------------------------------------------------------------------------------------
# casts

TL = {torch.float32: tl.float32, torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float64: tl.float64,
      torch.int32: tl.int32, torch.int16: tl.int16, torch.uint8: tl.uint8, torch.int64: tl.int64,
      torch.float8_e4m3fn: tl.float8e4nv, torch.float8_e5m2: tl.float8e5}  # fmt: skip


def run_cast(x: torch.Tensor, dst: torch.dtype, rounding: str = "", bitcast: bool = False) -> torch.Tensor:
    y = dev(torch.empty(x.numel(), dtype=dst))
    K.cast_kernel[(1,)](dev(x), y, x.numel(), DST=TL[dst], ROUNDING=rounding, BITCAST=bitcast)
    return y


def tricky_floats() -> torch.Tensor:
    """Values whose rounding tells the modes apart: ties, near-ties, subnormals, big, signs."""
    base = torch.randn(96) * torch.logspace(-3, 3, 96)
    ties = torch.tensor([1 + 2**-8, 1 + 3 * 2**-8, -(1 + 2**-8), 1 + 2**-11, 1 + 3 * 2**-11, 2**-130, -(2**-133),
                         1e-42, 3.0e38, 65519.0, 65521.0, -70000.0, 0.0, -0.0, 1 - 2**-24, 255.5, 240.0, 464.0,
                         0.3, -2.75, 1e-5, 6e-5, 1.5, 17.0, 2.5, 3.5, -3.5, 7.0, 1e-8, -1e-8, 100.0, -0.1])  # fmt: skip
    return torch.cat([base, ties]).float()


def rtz(x: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """x rounded toward zero to `dtype` (torch rounds to nearest: step back where it overshot)."""
    y = x.to(dtype)
    over = y.double().abs() > x.double().abs()
    bits = {torch.bfloat16: torch.int16, torch.float16: torch.int16}[dtype]
    stepped = (y.view(bits) - 1).view(dtype)  # the next value toward zero, for either sign
    return torch.where(over, stepped, y)


for _dst in (torch.bfloat16, torch.float16):
    _n = "bf16" if _dst == torch.bfloat16 else "fp16"

    @case("casts", f"fp32 -> {_n} (default: rtne)")
    def _cast_rtne(dst: torch.dtype = _dst) -> str:
        x = tricky_floats()
        return compare(run_cast(x, dst), x.to(dst))

    @case("casts", f"fp32 -> {_n}, fp_downcast_rounding='rtz'")
    def _cast_rtz(dst: torch.dtype = _dst) -> str:
        x = tricky_floats()
        return compare(run_cast(x, dst, "rtz"), rtz(x, dst))


@case("casts", "fp32 -> bf16 of inf and nan")
def _cast_special() -> str:
    x = torch.tensor([float("inf"), -float("inf"), float("nan"), 3.4e38] * 4)
    return compare(run_cast(x, torch.bfloat16), x.to(torch.bfloat16))


@case("casts", "fp64 -> bf16")
def _cast_f64_bf16() -> str:
    x = tricky_floats()  # fp32 values: torch's fp64 -> bf16 goes through fp32 (rounds twice)
    return compare(run_cast(x.double(), torch.bfloat16), x.to(torch.bfloat16))


@case("casts", "bf16 -> fp32, fp16 -> fp32")
def _cast_up() -> str:
    x = tricky_floats()
    compare(run_cast(x.bfloat16(), torch.float32), x.bfloat16().float())
    return compare(run_cast(x.half(), torch.float32), x.half().float())


@case("casts", "bf16 -> fp16 and fp16 -> bf16")
def _cast_16_16() -> str:
    x = torch.randn(128)
    compare(run_cast(x.bfloat16(), torch.float16), x.bfloat16().half())
    return compare(run_cast(x.half(), torch.bfloat16), x.half().bfloat16())


@case("casts", "bf16 -> fp64")
def _cast_bf16_f64() -> str:
    x = torch.randn(128).bfloat16()
    return compare(run_cast(x, torch.float64), x.double())


@case("casts", "bf16 -> int32, int32 -> bf16")
def _cast_bf16_int() -> str:
    x = (torch.randn(128) * 1000).bfloat16()
    compare(run_cast(x, torch.int32), x.float().trunc().int())
    i = torch.randint(-100000, 100000, (128,), dtype=torch.int32)
    return compare(run_cast(i, torch.bfloat16), i.to(torch.bfloat16))


@case("casts", "fp32 -> int32 (truncation toward zero)")
def _cast_f32_int() -> str:
    x = torch.randn(128) * 100
    return compare(run_cast(x, torch.int32), x.trunc().int())


for _f8, _f8name in ((torch.float8_e4m3fn, "fp8e4nv"), (torch.float8_e5m2, "fp8e5")):

    @case("casts", f"fp32 -> {_f8name} (rtne)")
    def _cast_f8(dtype: torch.dtype = _f8) -> str:
        x = tricky_floats()
        x = x[x.abs() < (440.0 if dtype == torch.float8_e4m3fn else 57000.0)][:64]  # saturation: not probed
        return compare(run_cast(x, dtype).view(torch.uint8), x.to(dtype).view(torch.uint8))

    @case("casts", f"{_f8name} -> fp32")
    def _cast_f8_up(dtype: torch.dtype = _f8) -> str:
        x = torch.arange(256, dtype=torch.uint8).view(dtype)
        return compare(run_cast(x, torch.float32), x.float())

    @case("casts", f"bf16 -> {_f8name}")
    def _cast_bf16_f8(dtype: torch.dtype = _f8) -> str:
        x = (torch.randn(128) * 4).bfloat16()
        return compare(run_cast(x, dtype).view(torch.uint8), x.float().to(dtype).view(torch.uint8))


@case("casts", "bitcast fp32 <-> int32, bf16 -> int16")
def _bitcast() -> str:
    x = torch.randn(128)
    compare(run_cast(x, torch.int32, bitcast=True), x.view(torch.int32))
    compare(run_cast(x.view(torch.int32), torch.float32, bitcast=True), x)
    return compare(run_cast(x.bfloat16(), torch.int16, bitcast=True), x.bfloat16().view(torch.int16))


# ---------------------------------------------------------------------------------------------
# elementwise arithmetic


def run_binary(x: torch.Tensor, y: torch.Tensor, op: str, out: torch.dtype | None = None) -> torch.Tensor:
    z = dev(torch.empty(x.numel(), dtype=out or x.dtype))
    K.binary_kernel[(1,)](dev(x), dev(y), z, x.numel(), OP=op)
    return z


BINARY_MODELS: dict[str, Callable[[torch.Tensor, torch.Tensor], torch.Tensor]] = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y,
    "lt": lambda x, y: (x < y).int(),
    "maximum": torch.maximum,
    "minimum": torch.minimum,
    "where": lambda x, y: torch.where(x > y, x, y),
    "fma": lambda x, y: (x.double() * y.double() + x.double()).to(x.dtype),
    "clamp": lambda x, y: torch.clamp(x, -y.abs(), y.abs()),
}

for _dtype, _name in ((torch.bfloat16, "bf16"), (torch.float16, "fp16")):
    for _op in BINARY_MODELS:

        @case(f"{_name} elementwise", f"{_name} {_op}")
        def _binary16(dtype: torch.dtype = _dtype, op: str = _op) -> str:
            x, y = (torch.randn(128) * 3).to(dtype), (torch.randn(128) * 3).to(dtype)
            out = torch.int32 if op == "lt" else None
            return compare(run_binary(x, y, op, out), BINARY_MODELS[op](x, y))


def run_unary(x: torch.Tensor, op: str, out: torch.dtype | None = None) -> torch.Tensor:
    y = dev(torch.empty(x.numel(), dtype=out or x.dtype))
    K.unary_kernel[(1,)](dev(x), y, x.numel(), OP=op)
    return y


@case("bf16 elementwise", "bf16 abs, neg")
def _bf16_unary() -> str:
    x = torch.randn(128).bfloat16()
    compare(run_unary(x, "abs"), x.abs())
    return compare(run_unary(x, "neg"), -x)


@case("bf16 elementwise", "tl.sqrt on bf16")
def _bf16_sqrt() -> str:
    return same_error(lambda: run_unary(torch.rand(16).bfloat16(), "sqrt"), "but got bf16")


for _dtype, _name in ((torch.bfloat16, "bf16"), (torch.float16, "fp16")):

    @case("math", f"tl.exp on {_name}")
    def _exp16(dtype: torch.dtype = _dtype, name: str = _name) -> str:
        return same_error(lambda: run_unary(torch.randn(16).to(dtype), "exp"), f"but got {name}")


POSITIVE = {"log", "log2", "sqrt", "sqrt_rn", "rsqrt", "log1p"}
FP32_MODELS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "exp": torch.exp, "exp2": torch.exp2, "log": torch.log, "log2": torch.log2, "sqrt": torch.sqrt,
    "sqrt_rn": lambda x: x.double().sqrt().float(),  # torch's fp32 sqrt on the CPU is not correctly rounded "rsqrt": torch.rsqrt, "sin": torch.sin, "cos": torch.cos, "erf": torch.erf,
    "sigmoid": torch.sigmoid, "abs": torch.abs, "floor": torch.floor, "ceil": torch.ceil,
    "gelu_erf": lambda x: 0.5 * x * (1.0 + torch.erf(x * 0.7071067811865476)),
    "tanh": torch.tanh, "libdevice_erf": torch.erf, "libdevice_exp": torch.exp, "fast_expf": torch.exp,
    "log1p": torch.log1p, "rint": torch.round, "isnan": lambda x: torch.isnan(x).float(),
}  # fmt: skip
EXACT = {"sqrt_rn", "abs", "floor", "ceil", "rint", "isnan"}

for _op, _model in FP32_MODELS.items():
    _where = (
        "libdevice"
        if _op in {"tanh", "libdevice_erf", "libdevice_exp", "fast_expf", "log1p", "rint", "isnan"}
        else "math"
    )

    @case(_where, f"{_op} (fp32)")
    def _unary32(op: str = _op, model: Callable[[torch.Tensor], torch.Tensor] = _model) -> str:
        x = torch.rand(256) * 8 + 0.01 if op in POSITIVE else torch.randn(256) * 4
        if op == "rint":
            x = torch.cat([x[:-4], torch.tensor([0.5, 1.5, 2.5, -2.5])])
        if op == "isnan":
            x[::7] = float("nan")
        tol = 0.0 if op in EXACT else 4e-6
        return compare(run_unary(x, op), model(x), tol, 1e-6 if op == "gelu_erf" else tol * 1e-2)


@case("libdevice", "popc (int32)")
def _popc() -> str:
    x = torch.randint(-(2**31), 2**31 - 1, (64,), dtype=torch.int32)
    want = torch.tensor([bin(v & 0xFFFFFFFF).count("1") for v in x.tolist()], dtype=torch.int32)
    return compare(run_unary(x, "popc"), want)


for _op, _model2 in (("pow", torch.pow), ("atan2", torch.atan2)):

    @case("libdevice", f"{_op} (fp32)")
    def _binary_libdevice(op: str = _op, model: Callable[..., torch.Tensor] = _model2) -> str:
        x, y = torch.rand(128) * 4 + 0.1, torch.randn(128) * 2
        return compare(run_binary(x, y, op), model(x, y), 4e-6, 1e-7)


@case("math", "div_rn, fdiv, cdiv")
def _divisions() -> str:
    x, y = torch.randn(128), torch.randn(128) + 3
    compare(run_binary(x, y, "div_rn"), x / y)
    compare(run_binary(x, y, "fdiv"), x / y, 2e-7, 1e-9)
    a, b = torch.randint(0, 1000, (128,), dtype=torch.int32), torch.randint(1, 50, (128,), dtype=torch.int32)
    return compare(run_binary(a, b, "cdiv"), (a + b - 1) // b)


@case("inline asm", "tl.inline_asm_elementwise")
def _inline_asm() -> str:
    x = torch.randint(0, 100, (32,), dtype=torch.int32)
    return compare(run_unary(x, "inline_asm"), x)


@case("tl.dot", "tl.dot_scaled (microscaled fp8)")
def _dot_scaled() -> str:
    a = torch.randn(32, 64).to(torch.float8_e4m3fn)
    scale = torch.full((32, 2), 127, dtype=torch.uint8)
    b = torch.randn(64, 32).bfloat16()
    c = dev(torch.empty(32, 32))
    K.dot_scaled_kernel[(1,)](dev(a), dev(scale), dev(b), c, 32, 32, 64)
    return compare(c, a.float().double() @ b.double(), 1e-2, 1e-2)


@case("libdevice", "float2int_rd (a directed rounding mode)")
def _directed() -> str:
    x = torch.randn(32) * 10
    y = dev(torch.empty(32, dtype=torch.int32))
    K.directed_rounding_kernel[(1,)](dev(x), y, 32)
    return compare(y, x.floor().int())


@case("torch in solve()", "torch.cuda.synchronize()")
def _synchronize() -> str:
    torch.cuda.synchronize()
    return "no-op"


@case("torch in solve()", "a tensor made with device='cuda'")
def _cuda_tensor() -> str:
    if DEVICE.type == "cuda":
        return "a GPU host"
    torch.empty(4, device="cuda")
    return "made"
