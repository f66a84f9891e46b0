"""CuPy: a Python module whose solve() gets zero-copy cupy.ndarray views of the judge's device
memory (bf16 as uint16 and fp8 as uint8 views of the raw bits: CuPy has neither), then the sizes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judge.harness.languages.base import Language


@dataclass(frozen=True)
class CupyLanguage(Language):
    def arguments(self, inputs: list[Any], outputs: list[Any], sizes: list[int]) -> list[Any]:
        return [as_cupy(t) for t in [*inputs, *outputs]] + list(sizes)


def as_cupy(tensor: Any) -> Any:
    """A cupy view of a CUDA tensor's own memory."""
    import cupy as cp
    import torch

    if tensor.dtype == torch.float8_e4m3fn:
        # Always the bytes: DLPack may or may not carry an fp8 type, and the statement promises uint8.
        return _bits_view(cp, tensor, cp.uint8)
    try:
        array = cp.from_dlpack(tensor)
    except (TypeError, ValueError, RuntimeError, BufferError):
        if tensor.dtype != torch.bfloat16:
            raise
        # CuPy has no bfloat16: hand over the raw 16-bit patterns as a uint16 view.
        array = _bits_view(cp, tensor, cp.uint16)
    if int(array.data.ptr) != tensor.data_ptr():
        raise RuntimeError("cupy view does not share the tensor's memory")
    return array


def _bits_view(cp: Any, tensor: Any, dtype: Any) -> Any:
    """The tensor's memory as a cupy array of same-width unsigned integers (its raw bit patterns)."""
    memory = cp.cuda.UnownedMemory(tensor.data_ptr(), tensor.numel() * tensor.element_size(), tensor)
    return cp.ndarray(tuple(tensor.shape), dtype=dtype, memptr=cp.cuda.MemoryPointer(memory, 0))


CUPY = CupyLanguage(
    name="cupy",
    own_kernels=True,
    needs_gpu="CuPy needs a GPU host; this host has no GPU, so it was not run",
    child_imports=("cupy",),
)
