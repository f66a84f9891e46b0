"""Tensor helpers shared by the parent and the child: dtypes, poison, checksums, comparison.

Imports torch; both sides run the same code so that a checksum the child reports can be
recomputed bit for bit by the parent from its own copy of the inputs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import torch

if TYPE_CHECKING:
    from judge.spec import Tolerance

DTYPES: dict[str, torch.dtype] = {
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "int32": torch.int32,
    "int64": torch.int64,
    "uint8": torch.uint8,
    "int8": torch.int8,
    "float8_e4m3fn": torch.float8_e4m3fn,
}
DTYPE_NAMES = {v: k for k, v in DTYPES.items()}

# Poison for integer outputs: a value no sane kernel produces by accident (int8: -128, which
# symmetric int8 quantization never stores, as it clamps to [-127, 127]).
INT_POISON = {"int32": -0x7FFF_FFFF, "int64": -0x7FFF_FFFF_FFFF_FFFF, "uint8": 0xA5, "int8": -0x80}

# Same-width integer views for bit-exact checksums.
_BITS_VIEW = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
_CHUNK = 1 << 24
_COMPARE_CHUNK = 1 << 26  # compare()'s float64 work, per chunk of elements
_MIX_A = 0x9E3779B1  # odd multipliers: every element position gets a distinct weight
_MIX_B = 0x85EBCA77


# Poisoned with NaN like the other floats: e4m3fn has no infinity but one NaN pattern (0x7F,
# 0xFF with the sign), which no saturating conversion stores.
FLOAT_DTYPES = ("float32", "float16", "bfloat16", "float8_e4m3fn")


def is_float(dtype_name: str) -> bool:
    return dtype_name in FLOAT_DTYPES


def poison_value(dtype_name: str) -> float | int:
    return math.nan if is_float(dtype_name) else INT_POISON[dtype_name]


def poison_(tensor: torch.Tensor, dtype_name: str) -> None:
    tensor.fill_(poison_value(dtype_name))


def checksum(tensor: torch.Tensor) -> str:
    """A position-sensitive checksum of the tensor's bits, as a hex string.

    sum_i(bits_i * w_i) mod 2**64 in int64 arithmetic: integer addition wraps and is associative,
    so the result does not depend on the reduction order of the device (parent and child agree
    bit for bit), while a changed, swapped or shifted element changes it.
    """
    flat = tensor.detach().contiguous().reshape(-1)
    if flat.numel() == 0:
        return "0"
    bits = flat.view(_BITS_VIEW[flat.element_size()])
    total = torch.zeros((), dtype=torch.int64, device=flat.device)
    for start in range(0, bits.numel(), _CHUNK):
        part = bits[start : start + _CHUNK].to(torch.int64)
        index = torch.arange(start, start + part.numel(), dtype=torch.int64, device=flat.device)
        weight = index * _MIX_A + _MIX_B
        total = total + (part * weight).sum() + (part ^ (index & 0xFFFF)).sum()
    return format(int(total.item()) & ((1 << 64) - 1), "016x")


# Between two calls on the same benchmark input set, at most this many elements per input are
# compared (random positions, drawn anew each time a set is handed to solve()).
BETWEEN_CALLS_SAMPLE = 1 << 20


@dataclass(frozen=True)
class InputSample:
    """Some of an input's bits, kept to see whether solve() wrote into it: every element when the
    input is small, else BETWEEN_CALLS_SAMPLE random positions. checksum() makes several int64
    passes over the whole input (bench/input_check_probe.py, 256 MiB on the 2-core dev CPU:
    951 ms against 37.5 ms for a sample taken and compared, medians of 5); per call it would
    crowd the timed calls out of their budget."""

    where: torch.Tensor | None  # None: all of it
    bits: torch.Tensor

    @classmethod
    def take(cls, tensor: torch.Tensor, generator: torch.Generator) -> InputSample:
        bits = _bits(tensor)
        if bits.numel() <= BETWEEN_CALLS_SAMPLE:
            return cls(None, bits.clone())
        where = torch.randint(bits.numel(), (BETWEEN_CALLS_SAMPLE,), generator=generator, device=bits.device)
        return cls(where, bits[where])

    def unchanged(self, tensor: torch.Tensor) -> bool:
        bits = _bits(tensor)
        return torch.equal(bits if self.where is None else bits[self.where], self.bits)


def _bits(tensor: torch.Tensor) -> torch.Tensor:
    flat = tensor.detach().reshape(-1)
    return flat.view(_BITS_VIEW[flat.element_size()])


def to_bytes(tensor: torch.Tensor) -> memoryview:
    """The raw bytes of a tensor (copied to the host)."""
    host = tensor.detach().contiguous().to("cpu")
    return memoryview(host.view(torch.uint8).reshape(-1).numpy())


def from_bytes(blob: bytearray, dtype_name: str, shape: tuple[int, ...], device: str) -> torch.Tensor:
    dtype = DTYPES[dtype_name]
    flat = torch.frombuffer(blob, dtype=torch.uint8) if len(blob) else torch.empty(0, dtype=torch.uint8)
    return flat.view(dtype).reshape(shape).to(device)


# The check of a benchmark shape's untimed first call (before its warm-up) reads a sample of each
# large output (JudgeConfig.precheck_sample_bytes); the check after the timing reads all of it.
SAMPLE_RUNS = 1024


def sample_positions(numel: int, itemsize: int, phase: int, budget_bytes: int) -> torch.Tensor | None:
    """The flat indices of an output that the pre-timing check reads: None (all of it) when it
    is at most budget_bytes, else SAMPLE_RUNS contiguous runs spread evenly over it, shifted
    within their strides by `phase` (the parent's choice). Parent and child compute the same."""
    wanted = budget_bytes // itemsize
    if numel <= wanted:
        return None
    runs = min(SAMPLE_RUNS, max(wanted, 1))
    run = max(1, wanted // runs)
    stride = numel // runs  # >= run, as numel > wanted
    shift = phase % (stride - run + 1)
    starts = torch.arange(runs, dtype=torch.int64) * stride + shift
    return (starts[:, None] + torch.arange(run, dtype=torch.int64)[None, :]).reshape(-1)


def nbytes(dtype_name: str, shape: tuple[int, ...]) -> int:
    count = 1
    for d in shape:
        count *= d
    return count * DTYPES[dtype_name].itemsize


# ---------------------------------------------------------------------------------------------
# Comparison against the reference (the rule of judge.spec.Tolerance).


@dataclass
class Comparison:
    passed: bool
    max_abs_err: float
    max_rel_err: float
    rel_l2: float
    mismatch_count: int
    total: int
    unwritten: int
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    reason: str = ""
    # Where the wrong elements are, as flat indices into the whole output (mismatch_positions).
    positions: dict[str, int] | None = None


def mismatch_positions(bad: torch.Tensor, total: int, sample: torch.Tensor | None = None) -> dict[str, int]:
    """first, last, count and total of the wrong elements (flat indices into the whole output),
    and stride when they are evenly spaced (every 32nd, a contiguous run): the pattern a person
    reads a bug from, which the first few listed mismatches can hide."""
    where = torch.nonzero(bad.reshape(-1), as_tuple=False).reshape(-1)
    if sample is not None:  # a checked sample: indices into the whole output, in order
        where = torch.sort(sample.to(where.device)[where]).values
    count = int(where.numel())
    summary = {"first": int(where[0].item()), "last": int(where[-1].item()), "count": count, "total": total}
    if count > 1:
        steps = where[1:] - where[:-1]
        if bool((steps == steps[0]).all().item()):
            summary["stride"] = int(steps[0].item())
    return summary


def _unravel(flat_index: int, shape: tuple[int, ...]) -> list[int]:
    index = []
    for dim in reversed(shape):
        index.append(flat_index % dim if dim else 0)
        flat_index //= dim if dim else 1
    return list(reversed(index))


def compare(
    expected: torch.Tensor,
    got: torch.Tensor,
    *,
    atol: float,
    rtol: float,
    atol_rms: float = 0.0,
    rel_l2: float | None = None,
    dtype_name: str = "float32",
    max_listed: int = 8,
    positions: torch.Tensor | None = None,
) -> Comparison:
    """Check got against the float64 reference.

    Elementwise: |got - ref| <= atol + atol_rms * rms(ref) + rtol * |ref|; NaN and Inf in got
    never match a finite reference (so an unwritten, NaN-poisoned element always fails); a
    non-finite reference is matched only by the identical infinity. Globally, when rel_l2 is set:
    ||got - ref||_2 / ||ref||_2 <= rel_l2.

    With `positions` (sample_positions), got holds only those flat elements of the output: the
    elementwise rule is checked on them with the whole reference's rms, mismatches are listed at
    their place in the whole output, and rel_l2 is left to a check of the whole output (a norm
    over a sample is not the output's).
    """
    whole = expected.detach()
    if positions is not None:
        expected = whole.reshape(-1)[positions.to(whole.device)]
    if tuple(got.shape) != tuple(expected.shape):
        raise ValueError(f"shape {tuple(got.shape)} != reference shape {tuple(expected.shape)}")
    ref_flat = expected.detach().reshape(-1)
    got_flat = got.detach().reshape(-1)
    total = ref_flat.numel()
    if total == 0:
        return Comparison(True, 0.0, 0.0, 0.0, 0, 0, 0)
    # The rms is a pass of its own over the reference: made only where the rule uses it.
    allowed_abs = atol + (atol_rms * _rms(whole) if atol_rms else 0.0)
    poison = None if is_float(dtype_name) else INT_POISON[dtype_name]
    # A chunk at a time: float64 copies of a whole 2^31-element output and their temporaries
    # come to about 85 GiB in the parent (kv_cache_int8's largest case); a chunk's to a few GiB.
    mismatch_count = unwritten = 0
    max_abs = max_rel = 0.0
    err_sq = ref_sq = 0.0
    unmatched_nonfinite = False
    bad_all: torch.Tensor | None = None  # the whole output's mask, made at the first mismatch
    listed_at: list[tuple[int, float, float, float]] = []  # (flat position, expected, got, |diff|)
    for begin in range(0, total, _COMPARE_CHUNK):
        ref = ref_flat[begin : begin + _COMPARE_CHUNK].to(torch.float64)
        out = got_flat[begin : begin + _COMPARE_CHUNK].to(ref.device).to(torch.float64)
        ref_finite = torch.isfinite(ref)
        out_finite = torch.isfinite(out)
        diff = torch.where(ref_finite & out_finite, (out - ref).abs(), torch.full_like(ref, math.inf))
        # Identical infinities match (a reference that is legitimately infinite).
        same_inf = (~ref_finite) & (out == ref)
        diff = torch.where(same_inf, torch.zeros_like(diff), diff)
        bad = ~((diff <= allowed_abs + rtol * ref.abs()) | same_inf)
        chunk_bad = int(bad.sum().item())
        if chunk_bad:
            if bad_all is None:
                bad_all = torch.zeros(total, dtype=torch.bool, device=bad.device)
            bad_all[begin : begin + bad.numel()] = bad
            if len(listed_at) < max_listed:
                for pos in torch.nonzero(bad, as_tuple=False).reshape(-1)[: max_listed - len(listed_at)].tolist():
                    e, g, a = float(ref[pos].item()), float(out[pos].item()), float(diff[pos].item())
                    listed_at.append((begin + int(pos), e, g, a))
        mismatch_count += chunk_bad
        if poison is None:
            unwritten += int(torch.isnan(out).sum().item())
        else:
            unwritten += int(((out == poison) & (ref != poison)).sum().item())
        max_abs = max(max_abs, float(diff.max().item()))
        max_rel = max(max_rel, float((diff / ref.abs().clamp_min(1e-300)).max().item()))
        unmatched_nonfinite = unmatched_nonfinite or bool((((~out_finite) | (~ref_finite)) & (~same_inf)).any().item())
        if not unmatched_nonfinite:
            err_sq += float((out[ref_finite] - ref[ref_finite]).square().sum().item())
            ref_sq += float(ref[ref_finite].square().sum().item())
    l2 = math.inf
    if not unmatched_nonfinite:
        l2 = math.sqrt(err_sq / ref_sq) if ref_sq > 0 else math.sqrt(err_sq)

    if positions is not None:
        rel_l2 = None
    listed = []
    shape = tuple(whole.shape)
    for pos, e, g, a in listed_at:
        listed.append(
            {
                "index": _unravel(pos if positions is None else int(positions[pos]), shape),
                "expected": e,
                "got": g,
                "abs_err": a,
                "rel_err": a / abs(e) if e != 0 and math.isfinite(a) else (math.inf if a else 0.0),
            }
        )
    passed = mismatch_count == 0
    reason = ""
    positions_summary = None
    if bad_all is not None:
        positions_summary = mismatch_positions(bad_all, whole.numel(), positions)
    if not passed:
        reason = f"{mismatch_count} of {total} elements outside the tolerance"
    if passed and rel_l2 is not None and not (l2 <= rel_l2):
        passed = False
        reason = f"relative L2 error {l2:.3g} exceeds {rel_l2:.3g}"
    return Comparison(
        passed=passed,
        max_abs_err=max_abs,
        max_rel_err=max_rel,
        rel_l2=float(l2),
        mismatch_count=mismatch_count,
        total=total,
        unwritten=unwritten,
        mismatches=listed,
        reason=reason,
        positions=positions_summary,
    )


def compare_within(
    expected: torch.Tensor, got: torch.Tensor, tol: Tolerance, dtype_name: str, positions: torch.Tensor | None = None
) -> Comparison:
    """compare() under a problem's tolerance: the judge's verdict on one output."""
    return compare(
        expected,
        got,
        atol=tol.atol,
        rtol=tol.rtol,
        atol_rms=tol.atol_rms,
        rel_l2=tol.rel_l2,
        dtype_name=dtype_name,
        positions=positions,
    )


def _rms(tensor: torch.Tensor) -> float:
    """Root mean square of the finite elements' float64 values, a chunk at a time (a whole
    reference's float64 copy would double its memory)."""
    flat = tensor.reshape(-1)
    total, count = 0.0, 0
    for start in range(0, flat.numel(), _CHUNK):
        part = flat[start : start + _CHUNK].to(torch.float64)
        finite = torch.isfinite(part)
        total += float(torch.where(finite, part * part, torch.zeros_like(part)).sum().item())
        count += part.numel()
    return math.sqrt(total / count) if count else 0.0


def tolerance_ratio(got: torch.Tensor, ref: torch.Tensor, tol: Tolerance) -> float:
    """The share of the tolerance a result uses under compare()'s rule: <= 1 passes; inf when
    got is not finite or not of the reference's shape. For calibration and tools (how close to
    the line), where compare() gives the verdict and its first mismatches. Computed in float64
    on got's device."""
    got64 = got.detach().to(torch.float64)
    ref64 = ref.detach().to(got64.device, torch.float64)
    if got64.shape != ref64.shape or not bool(torch.isfinite(got64).all()):
        return math.inf
    if ref64.numel() == 0:
        return 0.0
    diff = (got64 - ref64).abs()
    rms = float(ref64.square().mean().sqrt())
    bound = tol.atol + tol.atol_rms * rms + tol.rtol * ref64.abs()
    ratio = float(torch.where(diff == 0, torch.zeros_like(diff), diff / bound.clamp_min(1e-300)).max())
    if tol.rel_l2 is not None:
        ref_norm = float(ref64.norm())
        rel = float((got64 - ref64).norm()) / ref_norm if ref_norm else (0.0 if float(diff.max()) == 0 else math.inf)
        ratio = max(ratio, rel / tol.rel_l2)
    return ratio
