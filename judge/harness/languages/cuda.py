"""CUDA C++: a .cu file with `extern "C" void solve(...)`, compiled by the parent with nvcc
(parent/compile.py) into a shared library that the child calls through ctypes: device pointers
for the tensors, then int sizes. ctypes cannot check a C signature at call time, so the number
of parameters is checked in the source before compiling."""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from judge.harness import source_checks
from judge.harness.common.errors import scrub_paths
from judge.harness.languages.base import Language, LoadError, SignatureProblem

CPU_MESSAGE = "CUDA C++ needs a GPU host; compiled OK, not run (this host has no GPU)"


@dataclass(frozen=True)
class CudaLanguage(Language):
    @property
    def compiled(self) -> bool:
        return True

    def cpu_refusal_after_compile(self) -> str:
        return CPU_MESSAGE

    def signature_problem(self, source: str, signature: Sequence[str]) -> SignatureProblem | None:
        params = source_checks.cuda_solve_parameters(source)
        if params is None:
            return SignatureProblem(
                f'solution.cu must define extern "C" void solve({", ".join(signature)}) (device pointers, then ints)',
                'no extern "C" void solve(...) found in solution.cu',
            )
        if len(params) != len(signature):
            return SignatureProblem(
                f"wrong signature: solve must take {len(signature)} parameters ({', '.join(signature)}): "
                f"device pointers for the tensors, then int sizes; yours takes {len(params)}"
            )
        return None

    def load(self, path: str, signature: Sequence[str], tensors: int) -> Any:
        try:
            solve = ctypes.CDLL(path).solve
        except (OSError, AttributeError) as exc:
            detail = scrub_paths(str(exc), {path: "solution.so"})
            raise LoadError(f'the compiled library has no usable extern "C" solve(): {detail}') from None
        solve.argtypes = [ctypes.c_void_p] * tensors + [ctypes.c_int] * (len(signature) - tensors)
        solve.restype = None
        return solve

    def arguments(self, inputs: list[Any], outputs: list[Any], sizes: list[int]) -> list[Any]:
        return [t.data_ptr() for t in [*inputs, *outputs]] + list(sizes)


CUDA = CudaLanguage(name="cuda", own_kernels=True)
