"""The parent's side of the memory a call computes on (judge/harness/common/shared_memory.py).

One region per correctness case and per input set of a benchmark shape. Before each call the
parent writes the call's inputs into the region (generated here, from a seed the child never
learns), poisons the outputs, and keeps its own copy of the inputs; when the child says the call
is over, the parent snapshots the outputs from its own mapping (what the child writes later
does not count) and compares the inputs with its copy bit for bit.

On GPU hosts a region is a device allocation of the parent's, shared through a CUDA IPC handle
(common/device_memory.py); everything else is the same, done on the device.
"""

from __future__ import annotations

import socket
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import torch

from judge.harness.common.device_memory import DeviceRegion
from judge.harness.common.frames import Grant
from judge.harness.common.shared_memory import Region, Slot, layout, send_region_fd, send_region_handle
from judge.harness.common.tensors import DTYPES, poison_


@dataclass(frozen=True)
class TensorSpec:
    name: str
    dtype: str


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    return torch.equal(a.reshape(-1).view(torch.uint8), b.reshape(-1).view(torch.uint8))


class ParentMemory:
    def __init__(
        self, sock: socket.socket, inputs: Sequence[TensorSpec], outputs: Sequence[TensorSpec], device: str = "cpu"
    ) -> None:
        self.sock = sock
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.device = device
        self.regions: dict[str, Region | DeviceRegion] = {}
        self.written: dict[str, dict[str, torch.Tensor]] = {}  # the inputs each region was given

    def stage(
        self, key: str, values: dict[str, torch.Tensor], shapes: Mapping[str, Sequence[int]], set_index: int = 0
    ) -> Grant:
        """Write a call's inputs into region `key` (made and sent on first use) and poison its
        outputs; returns what the child's go carries about the call on input set `set_index`."""
        region = self.regions.get(key)
        grant = Grant(set=set_index, region=key)
        if region is None:
            slots, size = layout(
                [(t.name, t.dtype, tuple(shapes[t.name])) for t in self.inputs]
                + [(t.name, t.dtype, tuple(shapes[t.name])) for t in self.outputs]
            )
            region = self.create_region(slots, size)
            self.regions[key] = region
            grant = Grant(set=set_index, region=key, size=size, slots=[s.as_frame() for s in slots])
        copies = {}
        for spec in self.inputs:
            value = values[spec.name]
            view = region.views[spec.name]
            if tuple(value.shape) != tuple(view.shape) or value.dtype != DTYPES[spec.dtype]:
                raise RuntimeError(
                    f"generate_inputs gave {spec.name} {tuple(value.shape)} {value.dtype}, "
                    f"expected {tuple(view.shape)} {spec.dtype}"
                )
            view.copy_(value)
            copies[spec.name] = value.detach().contiguous()
        for spec in self.outputs:
            poison_(region.views[spec.name], spec.dtype)
        self.written[key] = copies
        return grant

    def create_region(self, slots: list[Slot], size: int) -> Region | DeviceRegion:
        """A new region, sent to the child: a sealed memfd, or on a GPU a device allocation."""
        if self.device == "cuda":
            device_region = DeviceRegion.create(slots, size)
            send_region_handle(self.sock, device_region.handle)
            return device_region
        region = Region.create(slots, size)
        send_region_fd(self.sock, region.fd)
        return region

    def poison(self, key: str) -> None:
        """Poison a region's outputs again (a call on inputs that stay as they were)."""
        for spec in self.outputs:
            poison_(self.regions[key].views[spec.name], spec.dtype)

    def modified_inputs(self, key: str) -> list[str]:
        """The inputs whose bits in the region differ from what the parent wrote."""
        region = self.regions[key]
        written = self.written[key]
        return [s.name for s in self.inputs if not _same_bits(region.views[s.name], written[s.name])]

    def inputs_written(self, key: str) -> dict[str, torch.Tensor]:
        return self.written[key]

    def snapshot(self, key: str) -> dict[str, torch.Tensor]:
        """The outputs as they are now, copied out of the shared pages."""
        region = self.regions[key]
        return {s.name: region.views[s.name].clone() for s in self.outputs}

    def slots(self, key: str) -> dict[str, Slot]:
        return self.regions[key].slots

    def release(self, prefix: str) -> None:
        """Drop the regions whose key starts with `prefix` (a shape's sets once it is done)."""
        for key in [k for k in self.regions if k.startswith(prefix)]:
            self.regions.pop(key).close()
            self.written.pop(key, None)

    def close(self) -> None:
        self.release("")
