"""Memory the parent owns and the child computes on (CPU hosts; docs/judging.md section 2).

The parent allocates every input and output a call uses in a memfd region, writes the call's
inputs and poisons its outputs itself right before the call, and afterwards reads both from its
own mapping: the outputs it checks and the inputs it compares with its own copy never pass
through the child's hands as values or checksums. The child receives the region's file
descriptor over a Unix socket (SCM_RIGHTS) on its fd 5 and maps the same pages.

A region is sealed against shrinking and growing before its fd leaves the parent, so the child
cannot truncate it under the parent's mapping (a read past the end would kill the parent with
SIGBUS). The layout (where each tensor lies) is the parent's: it reads its own layout, whatever
the child does with its mapping.

On GPU hosts the same seam takes CUDA IPC handles of parent allocations instead of fds
(common/device_memory.py): the region socket then carries the handle's bytes.
"""

from __future__ import annotations

import contextlib
import fcntl
import mmap
import os
import socket
from dataclasses import dataclass

import torch

from judge.harness.common.frames import RegionSlot
from judge.harness.common.tensors import DTYPES

ALIGN = 64  # every tensor starts on a cache line
SEALS = fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL
MAX_REGION_BYTES = 1 << 40


@dataclass(frozen=True)
class Slot:
    """Where one tensor lies in a region."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    offset: int

    @property
    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def nbytes(self) -> int:
        return self.numel * DTYPES[self.dtype].itemsize

    def as_frame(self) -> RegionSlot:
        return RegionSlot(name=self.name, dtype=self.dtype, shape=list(self.shape), offset=self.offset)

    @classmethod
    def from_frame(cls, frame: RegionSlot, region_bytes: int) -> Slot:
        """A slot from the parent's go, checked to lie inside a region of region_bytes."""
        if frame.dtype not in DTYPES or frame.offset < 0 or any(d < 0 for d in frame.shape):
            raise ValueError(f"bad slot {frame!r}")
        slot = cls(frame.name, frame.dtype, tuple(frame.shape), frame.offset)
        if slot.offset % ALIGN or slot.offset + slot.nbytes > region_bytes:
            raise ValueError(
                f"slot {slot.name} at {slot.offset} (+{slot.nbytes}) outside the region of {region_bytes} bytes"
            )
        return slot


def layout(tensors: list[tuple[str, str, tuple[int, ...]]]) -> tuple[list[Slot], int]:
    """Slots for (name, dtype, shape) one after another, each aligned; and the region's size."""
    slots = []
    offset = 0
    for name, dtype, shape in tensors:
        slot = Slot(name, dtype, tuple(shape), offset)
        slots.append(slot)
        offset += -(-slot.nbytes // ALIGN) * ALIGN
    return slots, max(offset, ALIGN)


class Region:
    """A memfd mapped into this process, with tensor views of its slots."""

    def __init__(self, fd: int, size: int, slots: list[Slot]) -> None:
        self.fd = fd
        self.size = size
        self.slots = {s.name: s for s in slots}
        self.map = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        self.views = {s.name: self._view(s) for s in slots}

    @classmethod
    def create(cls, slots: list[Slot], size: int, name: str = "gridstride-io") -> Region:
        """The parent's side: a new sealed memfd of exactly `size` bytes (zero-filled)."""
        if not 0 < size <= MAX_REGION_BYTES:
            raise ValueError(f"region size {size} out of range")
        fd = os.memfd_create(name, os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        try:
            os.ftruncate(fd, size)
            fcntl.fcntl(fd, fcntl.F_ADD_SEALS, SEALS)
            return cls(fd, size, slots)
        except BaseException:
            os.close(fd)
            raise

    @classmethod
    def attach(cls, fd: int, size: int, slots: list[Slot]) -> Region:
        """The child's side: map a region received from the parent (its size is checked)."""
        actual = os.fstat(fd).st_size
        if actual != size:
            os.close(fd)
            raise ValueError(f"the region is {actual} bytes, the parent said {size}")
        return cls(fd, size, slots)

    def _view(self, slot: Slot) -> torch.Tensor:
        dtype = DTYPES[slot.dtype]
        if slot.numel == 0:
            return torch.empty(slot.shape, dtype=dtype)
        flat = torch.frombuffer(self.map, dtype=dtype, count=slot.numel, offset=slot.offset)
        return flat.view(slot.shape)

    def close(self) -> None:
        self.views.clear()
        with contextlib.suppress(BufferError, ValueError):
            self.map.close()  # BufferError while a caller still holds a view: then on collection
        with contextlib.suppress(OSError):
            os.close(self.fd)


# ---------------------------------------------------------------------------------------------
# Passing region fds to the child: a stream socket carrying one byte per fd.


def send_region_fd(sock: socket.socket, fd: int) -> None:
    socket.send_fds(sock, [b"r"], [fd])


def send_region_handle(sock: socket.socket, handle: bytes) -> None:
    """A device region's CUDA IPC handle (common/device_memory.py), its bytes after a "g"."""
    sock.sendall(b"g" + handle)


def receive_region(sock: socket.socket, handle_bytes: int) -> int | bytes:
    """The next region on the socket: an fd (a memfd) or the bytes of a CUDA IPC handle."""
    data, fds, _flags, _addr = socket.recv_fds(sock, 1, 1)
    if data == b"r" and len(fds) == 1:
        return fds[0]
    for extra in fds:
        os.close(extra)
    if data != b"g":
        raise ValueError("the region channel carried no region")
    handle = b""
    while len(handle) < handle_bytes:
        chunk = sock.recv(handle_bytes - len(handle))
        if not chunk:
            raise ValueError("the region channel closed inside a CUDA IPC handle")
        handle += chunk
    return handle
