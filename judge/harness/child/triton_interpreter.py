"""Triton's CPU interpreter made to compute what a GPU computes, on hosts without a GPU.

A CPU judge host runs Triton submissions in the interpreter (TRITON_INTERPRET=1). As shipped
(Triton 3.6) it gets several things wrong that a correct kernel relies on; bench/interpreter_probe.py
finds them by running one small kernel per construct against a torch model of the GPU, and
docs/judging.md (section 8) lists them. The child installs the fixes below before it imports the
submission (it is still trusted then), so a correct kernel is never called wrong there:

- bf16 values live in the interpreter as raw 16-bit patterns, and it did arithmetic, comparisons,
  sums and tl.dot on the patterns (a bf16 tl.dot gave 2e9 for 0.004). Here bf16 operands are widened
  to fp32 exactly and results rounded to bf16 to nearest even: bf16 arithmetic is correctly rounded
  as on the GPU, and tl.dot multiplies exactly and accumulates in fp32 as the tensor cores do.
- fp32 tl.dot with the default input_precision="tf32" reads its operands as TF32 (the low 13
  mantissa bits dropped), as the tensor cores see them; the interpreter computed it in full fp32, so a kernel that a
  GPU calls wrong for TF32 passed here.
- casts to and from bf16 and fp8 (RTNE, rtz, subnormals, NaN and infinity patterns) follow
  interpreter_numerics; fma rounds once; tl.umulhi reads int32 operands as unsigned.
- atomic_add on bf16 (refused by the interpreter's C++ atomics) is applied element by element;
  programs run one after another in the interpreter, so that is the GPU's result.
- libdevice calls run (interpreter_libdevice); @triton.autotune times each config on the CPU
  clock instead of asking a GPU driver for a benchmarker.
- tl.full and tl.zeros in bf16 (the interpreter had no bf16 constants) work.
- torch.cuda.synchronize() is a no-op: the interpreter finishes every launch before returning.

What cannot run here raises NeedsGpu, which the judge turns into the verdict `rejected` with a
message that says so: inline PTX (tl.inline_asm_elementwise), tl.dot_scaled and any other builder
operation the interpreter lacks, libdevice functions outside the table, device="cuda" tensors.

install() checks that every internal it replaces is still there; tests/judge/test_triton_interpreter.py
and the probe pin the behaviour, so a Triton upgrade that moves these internals fails loudly.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from judge.harness.child import interpreter_libdevice as libdevice_impl
from judge.harness.child import interpreter_numerics as nx
from judge.harness.common.errors import exception_text

PINNED_TRITON = "3.6.0"
_installed = False


class NeedsGpu(Exception):
    """A construct that Triton's CPU interpreter cannot run on this host."""

    def __init__(self, construct: str, why: str = "Triton's CPU interpreter cannot run it") -> None:
        self.construct = construct
        self.why = why
        super().__init__(self.message())

    def message(self) -> str:
        return (
            f"needs a GPU: {self.construct} cannot run on this host ({self.why}; this host has no GPU). "
            "Nothing was judged wrong: submit to a GPU host, or leave it out to practise here."
        )


def needs_gpu_in(exc: BaseException) -> NeedsGpu | None:
    """The NeedsGpu behind `exc` (the interpreter wraps errors in InterpreterError), or one for a
    construct recognised from its error: a builder operation the interpreter lacks, a CUDA tensor."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, NeedsGpu):
            return current
        text = exception_text(current)
        if isinstance(current, AttributeError) and "'InterpreterBuilder' object has no attribute '" in text:
            op = text.split("has no attribute '", 1)[1].split("'", 1)[0].removeprefix("create_")
            return NeedsGpu(f"the Triton operation {op!r}", "Triton's CPU interpreter does not implement it")
        if "Torch not compiled with CUDA enabled" in text or "no NVIDIA driver" in text:
            return NeedsGpu("a CUDA tensor or torch.cuda call", "allocate with device=x.device to practise here")
        current = current.__cause__ or current.__context__
    return None


# ---------------------------------------------------------------------------------------------


def install() -> None:
    """Patch the interpreter (once per process). Raises RuntimeError if an internal it replaces is
    missing: an upgraded Triton must be checked with bench/interpreter_probe.py before it judges."""
    global _installed
    if _installed:
        return
    import triton
    import triton.language as tl
    from triton.runtime import autotuner, interpreter

    if triton.__version__ != PINNED_TRITON:
        raise RuntimeError(
            f"the interpreter fixes are pinned to Triton {PINNED_TRITON}, this is {triton.__version__}: "
            "run bench/interpreter_probe.py --raw and update judge/harness/child/triton_interpreter.py"
        )
    builder = interpreter.InterpreterBuilder
    needed = ["binary_op", "ternary_op", "unary_op", "cast_impl", "create_fp_to_fp", "create_fma", "create_dot",
              "create_umulhi", "create_atomic_rmw", "create_extern_elementwise", "create_inline_asm"]  # fmt: skip
    missing = [n for n in needed if not hasattr(builder, n)]
    for owner, attr in ((interpreter, "_patch_lang"), (interpreter, "TritonSemantic"), (interpreter, "TensorHandle"),
                        (interpreter, "_LangPatchScope"), (interpreter, "interpreter_builder"),
                        (interpreter.ReduceOps, "sum"), (interpreter.ScanOps, "cumsum"),
                        (interpreter.ScanOps, "cumprod"), (autotuner.Autotuner, "do_bench")):  # fmt: skip
        if not hasattr(owner, attr):
            missing.append(f"{getattr(owner, '__name__', owner)}.{attr}")
    if missing:
        raise RuntimeError(f"Triton's interpreter changed: {', '.join(missing)} not found")
    _patch_builder(builder, interpreter, tl)
    _patch_reductions(interpreter, tl)
    _patch_libdevice(interpreter)
    _patch_autotune(autotuner)
    cpu_torch_cuda()
    _installed = True


def _bf16(handle: Any) -> bool:
    return nx.is_type(handle.dtype, "bf16") and np.asarray(handle.data).dtype == np.uint16


def _patch_builder(builder: Any, interpreter: Any, tl: Any) -> None:
    Handle = interpreter.TensorHandle
    binary_op, ternary_op, unary_op = builder.binary_op, builder.ternary_op, builder.unary_op
    cast_impl, create_dot, create_umulhi = builder.cast_impl, builder.create_dot, builder.create_umulhi
    create_atomic_rmw = builder.create_atomic_rmw

    def wide(h: Any) -> np.ndarray:
        return nx.bf16_bits_to_f32(h.data) if _bf16(h) else h.data

    def bf16_result(out: np.ndarray) -> Any:
        if out.dtype == np.bool_:
            return Handle(out, tl.int1)
        return Handle(nx.f64_to_bf16_bits(out.astype(np.float64)), tl.bfloat16)

    def patched_binary(self: Any, lhs: Any, rhs: Any, op: Callable[..., np.ndarray]) -> Any:
        if _bf16(lhs) or _bf16(rhs):
            with np.errstate(all="ignore"):
                return bf16_result(op(wide(lhs), wide(rhs)))
        return binary_op(self, lhs, rhs, op)

    def patched_ternary(self: Any, a: Any, b: Any, c: Any, op: Callable[..., np.ndarray]) -> Any:
        if op is not np.where and (_bf16(a) or _bf16(b) or _bf16(c)):
            return bf16_result(op(wide(a), wide(b), wide(c)))
        return ternary_op(self, a, b, c, op)

    def patched_unary(self: Any, arg: Any, op: Callable[..., np.ndarray]) -> Any:
        if _bf16(arg):
            with np.errstate(all="ignore"):
                return bf16_result(op(wide(arg)))
        return unary_op(self, arg, op)

    def patched_cast(self: Any, src: Any, dst_type: Any) -> Any:
        if nx.handled(src.dtype) or nx.handled(dst_type):
            return Handle(nx.convert(src.data, src.dtype, dst_type), dst_type.scalar)
        return cast_impl(self, src, dst_type)

    def patched_fp_to_fp(self: Any, src: Any, dst_type: Any, rounding_mode: Any) -> Any:
        toward_zero = rounding_mode == interpreter._ir.ROUNDING_MODE.RTZ
        return Handle(nx.convert(src.data, src.dtype, dst_type, toward_zero), dst_type.scalar)

    def patched_fma(self: Any, x: Any, y: Any, z: Any) -> Any:
        # One rounding of x*y+z: float64 holds the exact product of any narrower operands.
        exact = nx.to_f64(x.data, x.dtype) * nx.to_f64(y.data, y.dtype) + nx.to_f64(z.data, z.dtype)
        return Handle(nx.from_f64(exact, z.dtype), z.dtype.scalar)

    def patched_dot(self: Any, a: Any, b: Any, d: Any, input_precision: Any, max_num_imprecise_acc: Any) -> Any:
        if not (a.dtype.scalar.is_floating() and b.dtype.scalar.is_floating()):
            return create_dot(self, a, b, d, input_precision, max_num_imprecise_acc)
        # As the tensor cores: 16- and 8-bit operands widen exactly, products are exact in fp32,
        # the sum is kept in fp32 (or in the fp16 accumulator asked for with out_dtype).
        a32 = nx.to_f64(a.data, a.dtype).astype(np.float32)
        b32 = nx.to_f64(b.data, b.dtype).astype(np.float32)
        if input_precision == interpreter._ir.INPUT_PRECISION.TF32 and nx.is_type(a.dtype, "fp32"):
            # fp32 tiles with the default input_precision run on TF32 tensor cores: 10 mantissa
            # bits per operand (a 1e-3 effect the fp32 problems' tolerances refuse, as on a GPU).
            a32, b32 = nx.tf32(a32), nx.tf32(b32)
        product = np.matmul(a32, b32)
        acc = nx.to_f64(d.data, d.dtype)
        return Handle(nx.from_f64(product.astype(np.float64) + acc, d.dtype), d.dtype.scalar)

    def patched_umulhi(self: Any, lhs: Any, rhs: Any) -> Any:
        # tl.umulhi is the high half of the unsigned product (mul.hi.u32) for signed types too.
        data = np.asarray(lhs.data)
        if data.dtype.kind == "i":
            unsigned = {4: np.uint32, 8: np.uint64}[data.dtype.itemsize]
            ul = Handle(data.view(unsigned), lhs.dtype)
            ur = Handle(np.asarray(rhs.data).view(unsigned), rhs.dtype)
            out = create_umulhi(self, ul, ur)
            return Handle(np.asarray(out.data).astype(unsigned).view(data.dtype), lhs.dtype.scalar)
        return create_umulhi(self, lhs, rhs)

    def patched_atomic_rmw(self: Any, rmw_op: Any, ptr: Any, val: Any, mask: Any, sem: Any, scope: Any) -> Any:
        if not _bf16(val):
            return create_atomic_rmw(self, rmw_op, ptr, val, mask, sem, scope)
        ops = interpreter._ir.ATOMIC_OP
        if rmw_op not in (ops.FADD, ops.XCHG):
            raise NeedsGpu(f"a bf16 atomic ({rmw_op})", "Triton's CPU interpreter has no bf16 atomics")
        return Handle(_bf16_atomic(ptr.data, val.data, mask.data, rmw_op == ops.FADD), val.dtype.scalar)

    def no_inline_asm(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise NeedsGpu("tl.inline_asm_elementwise (inline PTX)", "only a GPU can run PTX")

    def extern(
        self: Any, lib_name: Any, lib_path: Any, symbol: str, args: list[Any], ret_type: Any, is_pure: Any
    ) -> Any:
        out_dtype = interpreter._get_np_dtype(ret_type)
        result = libdevice_impl.evaluate(symbol, [np.asarray(h.data) for h in args], out_dtype)
        if result is None:
            raise NeedsGpu(f"libdevice function {symbol.removeprefix('__nv_')}", "it is not emulated on the CPU")
        return Handle(result, ret_type.scalar if hasattr(ret_type, "scalar") else ret_type)

    def get_bf16(self: Any, value: float) -> Any:
        # tl.full / tl.zeros in bf16: the interpreter has no bf16 constants at all.
        return Handle(nx.f64_to_bf16_bits(np.array([value], dtype=np.float64)), tl.bfloat16)

    builder.get_bf16 = get_bf16
    builder.binary_op = patched_binary
    builder.ternary_op = patched_ternary
    builder.unary_op = patched_unary
    builder.cast_impl = patched_cast
    builder.create_fp_to_fp = patched_fp_to_fp
    builder.create_fma = patched_fma
    builder.create_dot = patched_dot
    builder.create_umulhi = patched_umulhi
    builder.create_atomic_rmw = patched_atomic_rmw
    builder.create_inline_asm = no_inline_asm
    builder.create_extern_elementwise = extern


def _bf16_atomic(addresses: np.ndarray, values: np.ndarray, mask: np.ndarray, add: bool) -> np.ndarray:
    """Element by element in order, so repeated addresses within a block all count."""
    flat_addr = np.broadcast_to(addresses, values.shape).reshape(-1)
    flat_mask = np.broadcast_to(mask, values.shape).reshape(-1)
    flat_val = np.asarray(values).reshape(-1)
    old = np.zeros(flat_val.shape, dtype=np.uint16)
    for i in range(flat_val.size):
        if not flat_mask[i]:
            continue
        cell = ctypes.c_uint16.from_address(int(flat_addr[i]))
        old[i] = cell.value
        if add:
            total = nx.bf16_bits_to_f32(np.array([cell.value], np.uint16)).astype(np.float64)
            total += nx.bf16_bits_to_f32(flat_val[i : i + 1]).astype(np.float64)
            cell.value = int(nx.f64_to_bf16_bits(total)[0])
        else:
            cell.value = int(flat_val[i])
    return old.reshape(values.shape)


def _patch_reductions(interpreter: Any, tl: Any) -> None:
    """tl.sum and tl.cumsum/cumprod over bf16 (Triton keeps the bf16 type there): summed in fp32
    and rounded once, which is at least as close as the GPU's bf16 tree."""
    reduce_sum, scan_cumsum, scan_cumprod = (
        interpreter.ReduceOps.sum,
        interpreter.ScanOps.cumsum,
        interpreter.ScanOps.cumprod,
    )

    def as_bf16(ops: Any, values: np.ndarray, dtype: Any) -> Any:
        return ops.to_tensor(nx.f64_to_bf16_bits(values.astype(np.float64)), dtype)

    def patched_sum(self: Any, input: Any) -> Any:
        if _bf16(input.handle):
            total = np.sum(nx.bf16_bits_to_f32(input.handle.data), axis=self.axis, keepdims=self.keep_dims)
            return as_bf16(self, np.asarray(total), input.dtype)
        return reduce_sum(self, input)

    def patched_cumsum(self: Any, input: Any) -> Any:
        if _bf16(input.handle):
            return [as_bf16(self, np.cumsum(nx.bf16_bits_to_f32(input.handle.data), axis=self.axis), input.dtype)]
        return scan_cumsum(self, input)

    def patched_cumprod(self: Any, input: Any) -> Any:
        if _bf16(input.handle):
            return [as_bf16(self, np.cumprod(nx.bf16_bits_to_f32(input.handle.data), axis=self.axis), input.dtype)]
        return scan_cumprod(self, input)

    interpreter.ReduceOps.sum = patched_sum
    interpreter.ScanOps.cumsum = patched_cumsum
    interpreter.ScanOps.cumprod = patched_cumprod


def _patch_libdevice(interpreter: Any) -> None:
    """The interpreter binds triton.language and tl.math to itself for each launch, not libdevice:
    bind both libdevice modules too, for the same launch (the same restore scope)."""
    import triton.language as tl
    import triton.language.extra.cuda.libdevice as cuda_libdevice
    import triton.language.extra.libdevice as stub_libdevice

    patch_lang = interpreter._patch_lang
    semantic = interpreter.TritonSemantic(interpreter.interpreter_builder)

    def bind(member: Any) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            kwargs.pop("_semantic", None)
            return member(*args, **kwargs, _semantic=semantic)

        return call

    # Bound once: the interpreter binds its builtins again on every launch and every call of a
    # jit helper (tl.sum, tl.max, ...), which for ~400 libdevice functions cost seconds a kernel.
    bound = {name: bind(member) for name, member in vars(cuda_libdevice).items() if tl.core.is_builtin(member)}
    stub_names = [name for name in bound if hasattr(stub_libdevice, name)]
    marker = bound[stub_names[0]]

    def no_dot_scaled(*args: Any, **kwargs: Any) -> Any:
        # The interpreter fails inside tl.dot_scaled's own checks, before reaching its builder.
        raise NeedsGpu("tl.dot_scaled", "Triton's CPU interpreter does not implement it")

    def patched_patch_lang(fn: Any) -> Any:
        langs = [v for v in fn.__globals__.values() if isinstance(v, ModuleType) and v in (tl, tl.core)]
        if langs and not any(tl.core.is_builtin(lang.load) for lang in langs):
            # Already bound to the interpreter (a jit helper such as tl.sum called inside a
            # launch): binding every builtin again is what made such calls slow, and the
            # interpreter never restores these nested bindings anyway.
            scope = interpreter._LangPatchScope()
        else:
            scope = patch_lang(fn)
        if getattr(stub_libdevice, stub_names[0]) is marker:
            return scope  # already bound for this launch (a nested jit call)
        scope.set_attr(tl, "dot_scaled", no_dot_scaled)
        scope.set_attr(tl.core, "dot_scaled", no_dot_scaled)
        for name, call in bound.items():
            scope.set_attr(cuda_libdevice, name, call)
            if name in stub_names:
                scope.set_attr(stub_libdevice, name, call)
        return scope

    interpreter._patch_lang = patched_patch_lang


def _patch_autotune(autotuner: Any) -> None:
    """Autotuner.do_bench asks the GPU driver for a benchmarker ("0 active drivers" on a CPU):
    time each config's call with the CPU clock instead."""

    def cpu_bench(kernel_call: Callable[[], Any], quantiles: Any = None) -> list[float]:
        began = time.perf_counter()
        kernel_call()
        ms = (time.perf_counter() - began) * 1e3
        return [ms, ms, ms] if quantiles else [ms]

    def do_bench(self: Any) -> Callable[..., Any]:
        return self._do_bench or cpu_bench

    autotuner.Autotuner.do_bench = property(do_bench)


def cpu_torch_cuda() -> None:
    """On a host without CUDA, torch.cuda.synchronize() (which a GPU kernel's solve may call)
    returns at once: nothing is queued there, every CPU operation and interpreted launch has
    finished when it returns. Other torch.cuda calls still fail, as "needs a GPU"."""
    import torch

    if not torch.cuda.is_available():
        torch.cuda.synchronize = lambda device=None: None
