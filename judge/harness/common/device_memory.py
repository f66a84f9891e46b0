"""Device memory the parent owns and the child computes on (GPU hosts; docs/judging.md section 2).

The GPU form of common/shared_memory.py's regions: the parent allocates each region with the
CUDA driver itself (cuMemAlloc: an allocation of its own, never a piece of a caching
allocator's segment, so the handle opens nothing of the parent's but the region) and passes a
CUDA IPC handle (cuIpcGetMemHandle) to the child, which opens it in its own context. Both sides
see the same device memory through tensor views of the same layout; the parent writes inputs,
poisons outputs and reads both back from its own mapping, as on CPU hosts.

CUDA IPC needs no shared /dev/shm and no pidfd_getfd (torch's own IPC needs one or the other,
and the sandbox denies both); bench/trust_probe.py measured that it opens inside the sandbox.
"""

from __future__ import annotations

import ctypes
import functools
from typing import Any

import torch

from judge.harness.common.shared_memory import MAX_REGION_BYTES, Slot
from judge.harness.common.tensors import DTYPES

HANDLE_BYTES = 64
_LAZY_ENABLE_PEER_ACCESS = 1  # CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS, the flag cuIpcOpenMemHandle expects


class _IpcHandle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_ubyte * HANDLE_BYTES)]


@functools.cache
def _driver() -> Any:
    lib = ctypes.CDLL("libcuda.so.1")
    u64, size_t = ctypes.c_uint64, ctypes.c_size_t
    lib.cuMemAlloc_v2.argtypes = [ctypes.POINTER(u64), size_t]
    lib.cuMemFree_v2.argtypes = [u64]
    lib.cuIpcGetMemHandle.argtypes = [ctypes.POINTER(_IpcHandle), u64]
    lib.cuIpcOpenMemHandle_v2.argtypes = [ctypes.POINTER(u64), _IpcHandle, ctypes.c_uint]
    lib.cuIpcCloseMemHandle.argtypes = [u64]
    lib.cuCtxGetCurrent.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    return lib


def _check(code: int, what: str) -> None:
    if code != 0:
        raise RuntimeError(f"{what} failed (CUresult {code})")


def _with_context() -> Any:
    """The driver, with torch's context current on this thread (the runtime makes the device's
    primary context current on first use in a thread; a synchronize is such a use)."""
    torch.cuda.synchronize()
    lib = _driver()
    context = ctypes.c_void_p()
    _check(lib.cuCtxGetCurrent(ctypes.byref(context)), "cuCtxGetCurrent")
    if not context.value:
        raise RuntimeError("no CUDA context is current on this thread")
    return lib


class _Cai:
    """Just enough of __cuda_array_interface__ for torch.as_tensor to view device memory."""

    def __init__(self, pointer: int, nbytes: int) -> None:
        self.__cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "data": (pointer, False), "version": 2}


def device_view(pointer: int, slot: Slot) -> torch.Tensor:
    """A tensor of the slot's dtype and shape over device memory at pointer + slot.offset."""
    dtype = DTYPES[slot.dtype]
    if slot.numel == 0:
        return torch.empty(slot.shape, dtype=dtype, device="cuda")
    raw = torch.as_tensor(_Cai(pointer + slot.offset, slot.nbytes), device="cuda")
    return raw.view(dtype).view(slot.shape)


# Bytes this process holds in regions of its own (create), which torch's allocator does not count:
# the parent's figure of its own GPU memory needs them (parent/crowded.py).
_owned_bytes = 0


def owned_bytes() -> int:
    return _owned_bytes


class DeviceRegion:
    """One region of device memory with tensor views of its slots: the parent's own allocation
    (create) or the child's mapping of it (attach)."""

    def __init__(self, pointer: int, size: int, slots: list[Slot], handle: bytes, owner: bool) -> None:
        self.pointer = pointer
        self.size = size
        self.handle = handle
        self.owner = owner
        self.slots = {s.name: s for s in slots}
        self.views = {s.name: device_view(pointer, s) for s in slots}
        self.closed = False

    @classmethod
    def create(cls, slots: list[Slot], size: int) -> DeviceRegion:
        if not 0 < size <= MAX_REGION_BYTES:
            raise ValueError(f"region size {size} out of range")
        lib = _with_context()
        pointer = ctypes.c_uint64()
        _check(lib.cuMemAlloc_v2(ctypes.byref(pointer), size), f"cuMemAlloc of {size} bytes")
        try:
            handle = _IpcHandle()
            _check(lib.cuIpcGetMemHandle(ctypes.byref(handle), pointer.value), "cuIpcGetMemHandle")
            raw = ctypes.string_at(ctypes.addressof(handle), HANDLE_BYTES)
            region = cls(pointer.value, size, slots, raw, owner=True)
        except BaseException:
            lib.cuMemFree_v2(pointer.value)
            raise
        global _owned_bytes
        _owned_bytes += size
        return region

    @classmethod
    def attach(cls, handle: bytes, size: int, slots: list[Slot]) -> DeviceRegion:
        if len(handle) != HANDLE_BYTES:
            raise ValueError(f"a CUDA IPC handle is {HANDLE_BYTES} bytes, got {len(handle)}")
        lib = _with_context()
        pointer = ctypes.c_uint64()
        _check(
            lib.cuIpcOpenMemHandle_v2(
                ctypes.byref(pointer), _IpcHandle.from_buffer_copy(handle), _LAZY_ENABLE_PEER_ACCESS
            ),
            "cuIpcOpenMemHandle",
        )
        return cls(pointer.value, size, slots, handle, owner=False)

    def close(self) -> None:
        """Free the allocation (the parent) or close the mapping (the child), after the device
        is done with every call that used it."""
        if self.closed:
            return
        self.closed = True
        self.views.clear()
        torch.cuda.synchronize()
        lib = _driver()
        if self.owner:
            lib.cuMemFree_v2(self.pointer)
            global _owned_bytes
            _owned_bytes -= self.size
        else:
            lib.cuIpcCloseMemHandle(self.pointer)
