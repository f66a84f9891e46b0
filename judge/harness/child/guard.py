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
import time
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


def _watched_objects() -> dict[str, Any]:
    """Functions and classes the harness relies on, by a readable name."""
    watched: dict[str, Any] = {
        "time.perf_counter_ns": time.perf_counter_ns,
        "time.perf_counter": time.perf_counter,
        "time.monotonic": time.monotonic,
        "torch.cuda.synchronize": torch.cuda.synchronize,
        "torch.cuda.Event": torch.cuda.Event,
        "torch.cuda.Event.record": torch.cuda.Event.record,
        "torch.cuda.Event.elapsed_time": torch.cuda.Event.elapsed_time,
        "torch.cuda.Event.synchronize": torch.cuda.Event.synchronize,
        "torch.cuda._sleep": torch.cuda._sleep,
        "torch.sum": torch.sum,
        "torch.cuda.current_stream": torch.cuda.current_stream,
        "torch.cuda.default_stream": torch.cuda.default_stream,
        "torch.Tensor.fill_": torch.Tensor.fill_,
        "torch.Tensor.zero_": torch.Tensor.zero_,
        "torch.Tensor.data_ptr": torch.Tensor.data_ptr,
        "torch.Tensor.stride": torch.Tensor.stride,
        "torch.Tensor.is_contiguous": torch.Tensor.is_contiguous,
        "torch.Tensor.storage_offset": torch.Tensor.storage_offset,
        "torch.Tensor.untyped_storage": torch.Tensor.untyped_storage,
        "torch.Tensor.to": torch.Tensor.to,
        "torch.Tensor.view": torch.Tensor.view,
        "torch.Tensor.contiguous": torch.Tensor.contiguous,
        "torch.Tensor.sum": torch.Tensor.sum,
        "torch.Tensor.numpy": torch.Tensor.numpy,
        "torch.isnan": torch.isnan,
        "torch.arange": torch.arange,
        "torch.zeros": torch.zeros,
    }
    # Every function and class of the harness package loaded in this process, and their code.
    for name, module in sorted(sys.modules.items()):
        if not (name == "judge" or name.startswith(("judge.harness", "judge.spec", "judge.protocol"))):
            continue
        if module is None:
            continue
        for attr, value in sorted(vars(module).items()):
            if isinstance(value, types.FunctionType | type) and getattr(value, "__module__", None) == name:
                watched[f"{name}.{attr}"] = value
                if isinstance(value, type):
                    for meth_name, meth in sorted(vars(value).items()):
                        if isinstance(meth, types.FunctionType):
                            watched[f"{name}.{attr}.{meth_name}"] = meth
    return watched


class Guard:
    def __init__(self) -> None:
        self._flag_readers = _flag_readers()
        self._flags = {name: read() for name, read in self._flag_readers.items()}
        self._objects = _watched_objects()
        self._codes = {name: obj.__code__ for name, obj in self._objects.items() if isinstance(obj, types.FunctionType)}
        self._defaults = {
            name: (obj.__defaults__, obj.__kwdefaults__)
            for name, obj in self._objects.items()
            if isinstance(obj, types.FunctionType)
        }
        # Where each watched object lives, to look it up again by the same path.
        self._paths = dict(self._objects)
        self._getattr = getattr
        self._modules = sys.modules

    def _current(self, dotted: str) -> Any:
        """Resolve a watched name again through the live module and class attributes."""
        get = self._getattr
        modules = self._modules
        parts = dotted.split(".")
        for split in range(len(parts) - 1, 0, -1):
            module = modules.get(".".join(parts[:split]))
            if module is not None:
                obj: Any = module
                for part in parts[split:]:
                    if isinstance(obj, type):
                        obj = vars(obj).get(part, None) if part in vars(obj) else get(obj, part, None)
                    else:
                        obj = get(obj, part, None)
                return obj
        return None

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
        for name, original in self._objects.items():
            current = self._current(name)
            if current is not original:
                found.append(f"{name} was replaced")
                continue
            if name in self._codes:
                if original.__code__ is not self._codes[name]:
                    found.append(f"{name}.__code__ was replaced")
                elif (original.__defaults__, original.__kwdefaults__) != self._defaults[name]:
                    found.append(f"{name} defaults were changed")
        return found
