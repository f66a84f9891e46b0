"""Loading the submission and binding it to one input set's arguments; classifying what it
raises. Everything here runs with the submission's code in this process."""

from __future__ import annotations

import ctypes
import importlib.util
import inspect
import sys
from collections.abc import Callable
from typing import Any

import torch

from judge.harness.child.channel import Channel, Stop
from judge.harness.child.triton_interpreter import needs_gpu_in
from judge.harness.common.errors import exception_text, scrub_paths, syntax_error_message, trim, user_traceback


def load_module(path: str, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _signature_text(names: list[str]) -> str:
    return f"solve({', '.join(names)})"


def _check_python_signature(solve: Any, names: list[str], shown_as: str) -> str | None:
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


class Submission:
    """A loaded submission, bound per input set to a zero-argument call."""

    def __init__(self, job: dict[str, Any], channel: Channel) -> None:
        self.language = job["language"]
        self.path = job["paths"]["solution"]
        self.shown_as = job["shown_as"]
        self.names = job["signature"]
        self.n_tensors = len(job["inputs"]) + len(job["outputs"])
        self.channel = channel
        self.fn: Any = None
        self.cupy: Any = None

    def load(self) -> None:
        if self.language == "cuda":
            self._load_cuda()
            return
        try:
            module = load_module(self.path, "solution")
        except SyntaxError as exc:
            self.channel.send(
                {"kind": "error", "verdict": "compile_error", "message": syntax_error_message(exc, self.shown_as)}
            )
            raise Stop from None
        except BaseException as exc:
            self.channel.send(
                {"kind": "error", **classify(exc, self.path, self.shown_as, stage="importing your module")}
            )
            raise Stop from None
        solve = getattr(module, "solve", None)
        if solve is None:
            message = f"{self.shown_as} must define {_signature_text(self.names)}"
            self.channel.send({"kind": "error", "verdict": "runtime_error", "message": message})
            raise Stop
        problem = _check_python_signature(solve, self.names, self.shown_as)
        if problem:
            self.channel.send({"kind": "error", "verdict": "runtime_error", "message": problem})
            raise Stop
        self.fn = solve

    def _load_cuda(self) -> None:
        try:
            lib = ctypes.CDLL(self.path)
            fn = lib.solve
        except (OSError, AttributeError) as exc:
            detail = scrub_paths(str(exc), {self.path: "solution.so"})
            message = f'the compiled library has no usable extern "C" solve(): {detail}'
            self.channel.send({"kind": "error", "verdict": "runtime_error", "message": message})
            raise Stop from None
        fn.argtypes = [ctypes.c_void_p] * self.n_tensors + [ctypes.c_int] * (len(self.names) - self.n_tensors)
        fn.restype = None
        self.fn = fn

    def _to_cupy(self, tensor: torch.Tensor) -> Any:
        cp = self.cupy
        try:
            array = cp.from_dlpack(tensor)
        except (TypeError, ValueError, RuntimeError, BufferError):
            if tensor.dtype != torch.bfloat16:
                raise
            # CuPy has no bfloat16: hand over the raw 16-bit patterns as a uint16 view.
            memory = cp.cuda.UnownedMemory(tensor.data_ptr(), tensor.numel() * 2, tensor)
            array = cp.ndarray(tuple(tensor.shape), dtype=cp.uint16, memptr=cp.cuda.MemoryPointer(memory, 0))
        if int(array.data.ptr) != tensor.data_ptr():
            raise RuntimeError("cupy view does not share the tensor's memory")
        return array

    def bind(self, inputs: list[torch.Tensor], outputs: list[torch.Tensor], sizes: list[int]) -> Callable[[], Any]:
        fn = self.fn
        if self.language == "cuda":
            ptrs = [t.data_ptr() for t in inputs + outputs]
            args: list[Any] = [*ptrs, *sizes]
        elif self.language == "cupy":
            args = [self._to_cupy(t) for t in inputs + outputs] + list(sizes)
        else:
            args = [*inputs, *outputs, *sizes]

        def call() -> Any:
            return fn(*args)

        return call


def classify(exc: BaseException, path: str, shown_as: str, stage: str) -> dict[str, str]:
    """Map an exception raised by the submission to a verdict and a user-facing message."""
    name = type(exc).__name__
    module = type(exc).__module__ or ""
    needs_gpu = needs_gpu_in(exc)
    if needs_gpu is not None:
        return {"verdict": "rejected", "message": needs_gpu.message()}
    said = exception_text(exc)
    if isinstance(exc, torch.cuda.OutOfMemoryError | MemoryError) or "out of memory" in said.lower():
        return {"verdict": "memory_limit", "message": f"out of memory while {stage}: {trim(said, 2000)}"}
    text = user_traceback(exc, path, shown_as)
    if name == "CompilationError" and module.startswith("triton"):
        return {"verdict": "compile_error", "message": f"Triton could not compile your kernel:\n{text}"}
    return {"verdict": "runtime_error", "message": f"error while {stage}:\n{text}"}
