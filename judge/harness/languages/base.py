"""What every language declares, and the Python languages' way of loading a submission."""

from __future__ import annotations

import importlib.util
import inspect
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from judge import spec as specmod
from judge.harness import source_checks


class LoadError(Exception):
    """The submission loaded but gives no usable solve(): a runtime_error with this message."""


@dataclass(frozen=True)
class SignatureProblem:
    """A solve() whose parameters do not match the problem's, found in the source (compile_error)."""

    message: str
    log: str = ""


@dataclass(frozen=True)
class Language:
    name: str
    # Its solve() launches kernels of its own (Triton, CUDA, CuPy): on GPU hosts the profiler's
    # kernel list is read for the library-compute and no-kernel rules (docs/judging.md section 6).
    own_kernels: bool = False
    # Refused on a host without a GPU before anything runs, with this message.
    needs_gpu: str = ""
    # Modules the child imports before the guard's snapshot (so that importing them in the
    # submission is no change of global state).
    child_imports: tuple[str, ...] = ()
    # On a CPU host: Triton runs in its interpreter, with the judge's fixes installed first.
    triton_interpreter: bool = False
    # On a CPU host: torch.cuda.synchronize() becomes a no-op (nothing runs asynchronously there).
    torch_cuda_on_cpu: bool = False
    # Triton kernels it JIT-compiles are named to the parent, which bounds each compile.
    watches_triton_compiles: bool = False

    @property
    def suffix(self) -> str:
        return specmod.SOURCE_SUFFIX[self.name]

    @property
    def shown_as(self) -> str:
        """What the submission's file is called in messages."""
        return f"solution{self.suffix}"

    @property
    def compiled(self) -> bool:
        """The parent compiles the source into a library before the child runs (the child gets
        the library, not the source)."""
        return False

    def strip_comments(self, source: str) -> str:
        """The source with comments blanked, strings kept (source_checks.py)."""
        return source_checks.strip_comments(source, self.name)

    def signature_problem(self, source: str, signature: Sequence[str]) -> SignatureProblem | None:
        """A mismatch with the problem's signature that only the source shows (before compiling)."""
        return None

    def cpu_refusal_after_compile(self) -> str:
        """On a CPU host, the verdict message of a source that compiled (compiled languages)."""
        return ""

    # -- the child's side (runs with the submission's code in the process) --------------------

    def load(self, path: str, signature: Sequence[str], tensors: int) -> Any:
        """The submission's solve: its module imported from `path` (a real file: Triton reads
        kernel source). What the import raises goes to the caller (SyntaxError: a compile
        error; anything else: the submission's own exception); LoadError when solve() is
        missing or takes other arguments than the problem's."""
        module = _import(path, "solution")
        solve = getattr(module, "solve", None)
        if solve is None:
            raise LoadError(f"{self.shown_as} must define {_signature_text(signature)}")
        problem = _python_signature_problem(solve, signature, self.shown_as)
        if problem:
            raise LoadError(problem)
        return solve

    def arguments(self, inputs: list[Any], outputs: list[Any], sizes: list[int]) -> list[Any]:
        """solve()'s arguments for one input set: tensors as they are, then the sizes."""
        return [*inputs, *outputs, *sizes]


def _import(path: str, name: str) -> Any:
    found = importlib.util.spec_from_file_location(name, path)
    if found is None or found.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(found)
    sys.modules[name] = module
    found.loader.exec_module(module)
    return module


def _signature_text(names: Sequence[str]) -> str:
    return f"solve({', '.join(names)})"


def _python_signature_problem(solve: Any, names: Sequence[str], shown_as: str) -> str | None:
    if not callable(solve):
        return f"{shown_as} must define a function {_signature_text(names)}; `solve` is not callable"
    try:
        sig = inspect.signature(solve)
    except (TypeError, ValueError):
        return None  # builtins and C functions: let the call itself complain
    try:
        sig.bind(*names)
    except TypeError:
        return (
            f"wrong signature: solve must take {len(names)} arguments, {_signature_text(names)} "
            f"(inputs, outputs, then sizes); yours is solve{sig}"
        )
    return None
