"""libdevice functions (`triton.language.extra.libdevice`, `...extra.cuda.libdevice`) for
Triton's CPU interpreter, which ships none: each call there failed with "cannot convert None".

A libdevice call reaches the interpreter's builder as create_extern_elementwise with the CUDA
symbol (`__nv_tanhf`, `__nv_powf`, ...). The common ones are computed here in float64 and rounded
to the result type once (libdevice itself is within a few ulp of that). A symbol not in the table,
or one with a directed rounding mode (`_rd`, `_ru`, `_rz`), raises NeedsGpu naming it.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch

Fn = Callable[..., np.ndarray]


def _t(fn: Callable[..., torch.Tensor]) -> Fn:
    def run(*args: np.ndarray) -> np.ndarray:
        return fn(*(torch.from_numpy(np.ascontiguousarray(a, dtype=np.float64)) for a in args)).numpy()

    return run


def _vector(fn: Callable[..., float]) -> Fn:
    return np.vectorize(fn, otypes=[np.float64])


def _round_half_away(x: np.ndarray) -> np.ndarray:
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


FLOAT: dict[str, Fn] = {
    "abs": np.abs, "fabs": np.abs, "acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin,
    "asinh": np.arcsinh, "atan": np.arctan, "atanh": np.arctanh, "cbrt": np.cbrt, "ceil": np.ceil,
    "cos": np.cos, "cosh": np.cosh, "cospi": lambda x: np.cos(np.pi * x), "erf": _t(torch.erf),
    "erfc": _t(torch.erfc), "erfinv": _t(torch.erfinv), "erfcx": _t(torch.special.erfcx),
    "erfcinv": _t(lambda x: torch.erfinv(1 - x)), "exp": np.exp, "exp10": lambda x: np.power(10.0, x),
    "exp2": np.exp2, "expm1": np.expm1, "floor": np.floor, "log": np.log, "log10": np.log10,
    "log1p": np.log1p, "log2": np.log2, "logb": lambda x: np.floor(np.log2(np.abs(x))),
    "rint": np.rint, "nearbyint": np.rint, "round": _round_half_away, "rsqrt": lambda x: 1 / np.sqrt(x),
    "rcbrt": lambda x: 1 / np.cbrt(x), "sin": np.sin, "sinh": np.sinh, "sinpi": lambda x: np.sin(np.pi * x),
    "sqrt": np.sqrt, "tan": np.tan, "tanh": np.tanh, "trunc": np.trunc, "lgamma": _t(torch.lgamma),
    "tgamma": _vector(math.gamma), "normcdf": _t(torch.special.ndtr), "normcdfinv": _t(torch.special.ndtri),
    "saturate": lambda x: np.clip(x, 0.0, 1.0), "j0": _t(torch.special.bessel_j0),
    "j1": _t(torch.special.bessel_j1), "y0": _t(torch.special.bessel_y0), "y1": _t(torch.special.bessel_y1),
    "cyl_bessel_i0": _t(torch.special.i0), "cyl_bessel_i1": _t(torch.special.i1),
    "frcp_rn": lambda x: 1 / x, "drcp_rn": lambda x: 1 / x, "frsqrt_rn": lambda x: 1 / np.sqrt(x),
    "fsqrt_rn": np.sqrt, "dsqrt_rn": np.sqrt,
    # two arguments
    "atan2": np.arctan2, "copysign": np.copysign, "fdim": lambda x, y: np.maximum(x - y, 0.0),
    "fmod": np.fmod, "hypot": np.hypot, "rhypot": lambda x, y: 1 / np.hypot(x, y),
    "pow": np.power, "powi": np.power, "remainder": _vector(math.remainder), "ldexp": np.ldexp,
    "scalbn": np.ldexp, "fdiv_rn": np.divide, "ddiv_rn": np.divide, "fadd_rn": np.add, "dadd_rn": np.add,
    "fsub_rn": np.subtract, "dsub_rn": np.subtract, "fmul_rn": np.multiply, "dmul_rn": np.multiply,
    "fast_fdivide": np.divide, "fmax": np.fmax, "fmin": np.fmin,
    # three arguments
    "fma": lambda x, y, z: x * y + z, "fma_rn": lambda x, y, z: x * y + z,
    "norm3d": lambda x, y, z: np.sqrt(x * x + y * y + z * z),
    "rnorm3d": lambda x, y, z: 1 / np.sqrt(x * x + y * y + z * z),
}  # fmt: skip
FAST = {"fast_exp": "exp", "fast_exp10": "exp10", "fast_log": "log", "fast_log2": "log2", "fast_log10": "log10",
        "fast_sin": "sin", "fast_cos": "cos", "fast_tan": "tan", "fast_pow": "pow", "fast_fdivide": "fast_fdivide"}  # fmt: skip
PREDICATES: dict[str, Fn] = {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite, "finite": np.isfinite,
                             "signbit": np.signbit}  # fmt: skip


def _bits(x: np.ndarray) -> tuple[np.ndarray, int]:
    width = x.dtype.itemsize * 8
    return x.view(np.uint32 if width == 32 else np.uint64).astype(object), width


def _popc(x: np.ndarray) -> np.ndarray:
    u, _ = _bits(x)
    return np.array([bin(int(v)).count("1") for v in u.reshape(-1)], dtype=np.int32).reshape(x.shape)


def _clz(x: np.ndarray) -> np.ndarray:
    u, width = _bits(x)
    return np.array([width - int(v).bit_length() for v in u.reshape(-1)], dtype=np.int32).reshape(x.shape)


def _brev(x: np.ndarray) -> np.ndarray:
    u, width = _bits(x)
    out = [int(format(int(v), f"0{width}b")[::-1], 2) for v in u.reshape(-1)]
    return np.array(out, dtype=np.uint64).astype(np.uint32 if width == 32 else np.uint64).view(x.dtype).reshape(x.shape)


def _mulhi(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    width = x.dtype.itemsize * 8
    signed = x.dtype.kind == "i"
    out = [(int(a) * int(b)) >> width for a, b in zip(x.reshape(-1).tolist(), y.reshape(-1).tolist(), strict=True)]
    mask = (1 << width) - 1
    raw = np.array([v & mask for v in out], dtype=np.uint64)
    raw = raw.astype(np.uint32 if width == 32 else np.uint64)
    return (raw.view(np.int32 if width == 32 else np.int64) if signed else raw).reshape(x.shape)


INTEGER: dict[str, Fn] = {"popc": _popc, "popcll": _popc, "clz": _clz, "clzll": _clz, "brev": _brev, "brevll": _brev,
                          "mulhi": _mulhi, "umulhi": _mulhi, "mul64hi": _mulhi, "umul64hi": _mulhi,
                          "abs": np.abs, "llabs": np.abs}  # fmt: skip


def base_name(symbol: str, is_float: bool) -> str:
    """`__nv_tanhf` -> `tanh`; `__nv_fast_expf` -> `fast_exp`; `__nv_isnand` -> `isnan`."""
    name = symbol.removeprefix("__nv_")
    if name in INTEGER or name in FLOAT or name in PREDICATES:
        return name
    for suffix in ("f", "d"):
        stem = name[:-1]
        if name.endswith(suffix) and (stem in FLOAT or stem in PREDICATES or stem in FAST or stem == "nextafter"):
            return stem
    if name.endswith("f_rn") and name[:-4] in FLOAT:  # __nv_fmaf_rn
        return name[:-4]
    if name.startswith("is") and name.endswith("d") and name[:-1] in PREDICATES:
        return name[:-1]
    return name


def evaluate(symbol: str, args: list[np.ndarray], out_dtype: np.dtype) -> np.ndarray | None:
    """The result of libdevice `symbol` on `args` as `out_dtype`, or None when not supported."""
    is_float = all(np.asarray(a).dtype.kind == "f" for a in args)
    name = base_name(symbol, is_float)
    name = FAST.get(name, name)
    if is_float and name == "nextafter":  # in the operands' own precision, not float64
        return np.nextafter(*(np.asarray(a) for a in args)).astype(out_dtype)
    if is_float and name in PREDICATES:
        return PREDICATES[name](np.asarray(args[0])).astype(out_dtype)
    if is_float and name in FLOAT:
        with np.errstate(all="ignore"):
            wide = FLOAT[name](*(np.asarray(a, dtype=np.float64) for a in args))
            return np.asarray(wide).astype(out_dtype)
    if not is_float and name in INTEGER:
        return np.asarray(INTEGER[name](*(np.asarray(a) for a in args))).astype(out_dtype)
    return None
