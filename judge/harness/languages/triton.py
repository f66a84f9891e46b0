"""Triton: a Python module whose solve() launches @triton.jit kernels on the judge's tensors.

On a CPU host Triton runs in its interpreter, with the judge's fixes installed before the
submission is imported (docs/judging.md section 8)."""

from __future__ import annotations

from judge.harness.languages.base import Language

TRITON = Language(
    name="triton",
    own_kernels=True,
    child_imports=("triton",),
    triton_interpreter=True,
    watches_triton_compiles=True,
)
