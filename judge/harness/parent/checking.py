"""Checking one call's outputs against the trusted reference (docs/judging.md section 4).

The child sends every output's raw bytes (before a shape's timing: a sample of a large one);
the parent compares them with the float64 reference it computed from the same seed.
"""

from __future__ import annotations

import math
from typing import Any

from judge import spec as specmod
from judge.harness.common import framing
from judge.harness.common.tensors import DTYPES, compare_within, from_bytes, nbytes, sample_positions
from judge.harness.parent.references import Expected

Comparison = tuple[str, Any]


def compare_outputs(
    spec: specmod.ProblemSpec,
    sizes: dict[str, int],
    pending: dict[str, Any],
    expected: Expected,
    *,
    device: str,
    label: str,
    sample_phase: int | None = None,
    sample_bytes: int = 0,
) -> tuple[list[Comparison], bool]:
    """Each output's comparison and whether a sample was compared; `pending` (the output frames
    received for this call) is emptied. ForgedFrame for a missing, extra or wrong-sized output."""
    comparisons: list[Comparison] = []
    sampled = False
    for tensor in spec.outputs:
        shape = tensor.concrete_shape(sizes)
        positions = None
        if sample_phase is not None:
            itemsize = DTYPES[tensor.dtype].itemsize
            positions = sample_positions(math.prod(shape), itemsize, sample_phase, sample_bytes)
            sampled = sampled or positions is not None
        sent_shape = shape if positions is None else (positions.numel(),)
        blob = pending.pop(tensor.name, None)
        if blob is None or len(blob) != nbytes(tensor.dtype, sent_shape):
            raise framing.ForgedFrame(f"output {tensor.name} missing or of the wrong size for {label}")
        got = from_bytes(blob, tensor.dtype, sent_shape, device)
        ref = expected.outputs.get(tensor.name)
        if ref is None or tuple(ref.shape) != shape:
            raise RuntimeError(f"the reference of {spec.slug} gave no {tensor.name} of shape {shape}")
        comparisons.append((tensor.name, compare_within(ref, got, spec.tolerance, tensor.dtype, positions)))
        del got
    if pending:
        raise framing.ForgedFrame(f"unexpected outputs {sorted(pending)}")
    return comparisons, sampled
