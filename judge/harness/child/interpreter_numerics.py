"""Float conversions for Triton's CPU interpreter, done the way a GPU does them.

The interpreter keeps bf16 values as their raw 16-bit patterns (numpy has no bfloat16) and fp8
values as raw bytes, and its own conversions lose subnormals, round bf16 toward zero where the GPU
rounds to nearest even, and read fp8 NaN and infinity patterns as numbers. These helpers convert
through float64, which holds every bf16, fp16, fp32 and fp8 value exactly, and round once to the
target: to nearest even by default (cvt.rn), toward zero for fp_downcast_rounding="rtz" (cvt.rz).
fp8e4nv saturates to +-448 as the GPU's cvt.rn.satfinite does (the format has no infinity).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import torch

if TYPE_CHECKING:  # imported for types only: the child imports Triton in its warm-up, timed
    import triton.language as tl

_FP8_TORCH = {
    "fp8e4nv": torch.float8_e4m3fn,
    "fp8e5": torch.float8_e5m2,
    "fp8e4b8": torch.float8_e4m3fnuz,
    "fp8e5b16": torch.float8_e5m2fnuz,
}
_FP8_SATURATE = {"fp8e4nv": 448.0, "fp8e4b8": 240.0, "fp8e5b16": 57344.0}
_NUMPY_FLOATS = {"fp16": np.float16, "fp32": np.float32, "fp64": np.float64}


def is_type(handle_dtype: object, name: str) -> bool:
    scalar = getattr(handle_dtype, "scalar", handle_dtype)
    return getattr(scalar, "name", None) == name


def handled(dtype: object) -> bool:
    """Whether values of this Triton dtype need these conversions (bf16 and the fp8 formats)."""
    name = getattr(getattr(dtype, "scalar", dtype), "name", "")
    return name == "bf16" or name in _FP8_TORCH


def bf16_bits_to_f32(bits: np.ndarray) -> np.ndarray:
    return (np.asarray(bits).astype(np.uint32) << np.uint32(16)).view(np.float32)


def to_f64(data: np.ndarray, dtype: tl.dtype) -> np.ndarray:
    """The exact values held by interpreter data of a float dtype (or an integer dtype)."""
    name = dtype.scalar.name
    if name == "bf16":
        return bf16_bits_to_f32(data).astype(np.float64)
    if name in _FP8_TORCH:
        raw = torch.from_numpy(np.ascontiguousarray(data).view(np.uint8))
        return raw.view(_FP8_TORCH[name]).double().numpy()
    return np.asarray(data).astype(np.float64)


def tf32(x: np.ndarray) -> np.ndarray:
    """fp32 values as TF32 tensor cores read them: the low 13 mantissa bits dropped (Hopper's
    wgmma takes its operands straight from shared memory, with no conversion on the way)."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    truncated = (bits & np.uint32(0xFFFFE000)).view(np.float32)
    return np.where(np.isnan(x), x, truncated).astype(np.float32)


def _f64_to_f32_round_to_odd(x: np.ndarray) -> np.ndarray:
    """f64 -> f32 rounding to odd: a second rounding to a narrower format is then exact."""
    with np.errstate(over="ignore", invalid="ignore"):
        t = x.astype(np.float32)
        inexact = np.isfinite(x) & (t.astype(np.float64) != x)
        over = inexact & (np.abs(t.astype(np.float64)) > np.abs(x))
        t = np.where(over, np.nextafter(t, np.float32(0)), t).astype(np.float32)
        bits = t.view(np.uint32) | np.where(inexact, np.uint32(1), np.uint32(0)).astype(np.uint32)
    return bits.view(np.float32)


def f64_to_bf16_bits(x: np.ndarray, toward_zero: bool = False) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    bits = _f64_to_f32_round_to_odd(x).view(np.uint32).astype(np.uint64)
    if toward_zero:
        out = bits >> np.uint64(16)
    else:
        out = (bits + np.uint64(0x7FFF) + ((bits >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16)
    nan = np.isnan(x)
    out = np.where(nan, (bits >> np.uint64(16)) | np.uint64(0x0040), out)
    return out.astype(np.uint16)


def _step_toward_zero(rounded: np.ndarray, exact: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """Where rounding to nearest overshot the exact value in magnitude, the next pattern toward
    zero (one less in the magnitude bits, for either sign) is the value rounded toward zero."""
    overshot = np.isfinite(exact) & (np.abs(rounded) > np.abs(exact))
    return np.where(overshot, bits - bits.dtype.type(1), bits)


def from_f64(x: np.ndarray, dtype: tl.dtype, toward_zero: bool = False) -> np.ndarray:
    """Round exact values to interpreter data of `dtype` (raw patterns for bf16 and fp8)."""
    name = dtype.scalar.name
    x = np.asarray(x, dtype=np.float64)
    if name == "bf16":
        return f64_to_bf16_bits(x, toward_zero)
    if name in _FP8_TORCH:
        limit = _FP8_SATURATE.get(name)
        if limit is not None:
            x = np.where(np.isfinite(x), np.clip(x, -limit, limit), x)
        fp8 = torch.from_numpy(_f64_to_f32_round_to_odd(x)).to(_FP8_TORCH[name])
        bits = fp8.view(torch.uint8).numpy().copy()
        if toward_zero:
            bits = _step_toward_zero(to_f64(bits, dtype), x, bits)
        return bits.astype(np.uint8)
    if name in _NUMPY_FLOATS:
        target = _NUMPY_FLOATS[name]
        with np.errstate(over="ignore"):
            rounded = x.astype(target)
        if toward_zero:
            uint = {np.float16: np.uint16, np.float32: np.uint32, np.float64: np.uint64}[target]
            return _step_toward_zero(rounded.astype(np.float64), x, rounded.view(uint)).view(target)
        return rounded
    raise TypeError(f"not a float dtype: {dtype}")


def to_integer(x: np.ndarray, dtype: tl.dtype) -> np.ndarray:
    """Float -> integer as cvt.rzi does: truncation toward zero (out-of-range values are undefined
    on the GPU as in C; here they wrap)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return np.trunc(x).astype(np.int64).astype(np.dtype(_np_int(dtype)))


def _np_int(dtype: tl.dtype) -> type:
    name = dtype.scalar.name
    table = {"int1": np.bool_, "int8": np.int8, "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16,
             "int32": np.int32, "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64}  # fmt: skip
    return table[name]


def convert(data: np.ndarray, src: tl.dtype, dst: tl.dtype, toward_zero: bool = False) -> np.ndarray:
    """One cast where bf16 or an fp8 format is on either side."""
    values = to_f64(data, src) if src.scalar.is_floating() else np.asarray(data).astype(np.float64)
    if dst.scalar.is_floating():
        return from_f64(values, dst, toward_zero)
    return to_integer(values, dst)
