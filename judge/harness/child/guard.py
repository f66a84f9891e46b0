"""Snapshot of global state that a submission must not change (runs in the child).

A submission runs in the same interpreter as the child's harness code, so it could lower the
precision of every later matmul (TF32, reduced-precision reductions) or replace the functions the
harness times with (torch.cuda.Event.elapsed_time, torch.cuda.synchronize, this package's own
functions). The guard records all of them once, before the submission's module is imported, and
compares after the import and after every call. The comparison uses references captured at
snapshot time, so replacing the guard's own methods afterwards does not hide a change (they are
in the snapshot too).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import Any

import torch


def _flag_readers() -> dict[str, Callable[[], Any]]:
    matmul = torch.backends.cuda.matmul
    return {
        "torch.backends.cuda.matmul.allow_tf32": lambda: matmul.allow_tf32,
        "torch.backends.cudnn.allow_tf32": lambda: torch.backends.cudnn.allow_tf32,
        "torch.get_float32_matmul_precision()": torch.get_float32_matmul_precision,
        "torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction": lambda: (
            matmul.allow_bf16_reduced_precision_reduction
        ),
        "torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction": lambda: (
            matmul.allow_fp16_reduced_precision_reduction
        ),
        "torch.are_deterministic_algorithms_enabled()": torch.are_deterministic_algorithms_enabled,
        "torch.backends.cudnn.deterministic": lambda: torch.backends.cudnn.deterministic,
        "torch.get_default_dtype()": torch.get_default_dtype,
    }


def _watched_objects() -> dict[str, tuple[Any, str, Any]]:
    """Functions and classes the harness relies on, by a readable name: (the namespace that
    holds each, the attribute name there, the object)."""
    watched: dict[str, tuple[Any, str, Any]] = {}
    for dotted in (
        "time.perf_counter_ns",
        "time.perf_counter",
        "time.monotonic",
        "torch.cuda.synchronize",
        "torch.cuda.Event",
        "torch.cuda.Event.record",
        "torch.cuda.Event.elapsed_time",
        "torch.cuda.Event.synchronize",
        "torch.cuda._sleep",
        "torch.sum",
        "torch.cuda.current_stream",
        "torch.cuda.default_stream",
        "torch.Tensor.fill_",
        "torch.Tensor.zero_",
        "torch.Tensor.data_ptr",
        "torch.Tensor.stride",
        "torch.Tensor.is_contiguous",
        "torch.Tensor.storage_offset",
        "torch.Tensor.untyped_storage",
        "torch.Tensor.to",
        "torch.Tensor.view",
        "torch.Tensor.contiguous",
        "torch.Tensor.sum",
        "torch.Tensor.numpy",
        "torch.isnan",
        "torch.arange",
        "torch.zeros",
    ):
        holder_path, attr = dotted.rsplit(".", 1)
        holder: Any = sys.modules.get(holder_path)
        if holder is None:  # a class: its module, then the class
            module_path, class_name = holder_path.rsplit(".", 1)
            holder = getattr(sys.modules[module_path], class_name)
        watched[dotted] = (holder, attr, getattr(holder, attr))
    # Every function and class of the harness package loaded in this process, and their code.
    for name, module in sorted(sys.modules.items()):
        if not (name == "judge" or name.startswith(("judge.harness", "judge.spec", "judge.protocol"))):
            continue
        if module is None:
            continue
        for attr, value in sorted(vars(module).items()):
            if isinstance(value, types.FunctionType | type) and getattr(value, "__module__", None) == name:
                watched[f"{name}.{attr}"] = (module, attr, value)
                if isinstance(value, type):
                    for meth_name, meth in sorted(vars(value).items()):
                        if isinstance(meth, types.FunctionType):
                            watched[f"{name}.{attr}.{meth_name}"] = (value, meth_name, meth)
    return watched


class Guard:
    def __init__(self) -> None:
        self._flag_readers = _flag_readers()
        self._flags = {name: read() for name, read in self._flag_readers.items()}
        watched = _watched_objects()
        # Each watched object is looked up again on the live module or class that holds it
        # (resolved once here, so that a check costs one attribute lookup per object; on a class
        # the lookup follows its bases, as the harness's own calls do).
        self._entries: list[tuple[str, Any, str, Any, Any, Any]] = [
            (name, holder, attr, obj, *self._code_of(obj)) for name, (holder, attr, obj) in watched.items()
        ]
        self._getattr = getattr

    @staticmethod
    def _code_of(obj: Any) -> tuple[Any, Any]:
        if isinstance(obj, types.FunctionType):
            return obj.__code__, (obj.__defaults__, obj.__kwdefaults__)
        return None, None

    def changes(self) -> list[str]:
        """Human-readable descriptions of everything that differs from the snapshot."""
        found = []
        for name, read in self._flag_readers.items():
            try:
                value = read()
            except Exception as exc:  # a replaced accessor that raises is a change too
                value = f"<error {exc!r}>"
            if value != self._flags[name]:
                found.append(f"{name} changed from {self._flags[name]!r} to {value!r}")
        get = self._getattr
        for name, holder, attr, original, code, defaults in self._entries:
            current: Any = get(holder, attr, None)
            if current is not original:
                found.append(f"{name} was replaced")
            elif code is not None:
                if current.__code__ is not code:
                    found.append(f"{name}.__code__ was replaced")
                elif (current.__defaults__, current.__kwdefaults__) != defaults:
                    found.append(f"{name} defaults were changed")
        return found
