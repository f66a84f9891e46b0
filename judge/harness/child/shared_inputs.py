"""The child's side of the parent's memory (judge/harness/common/shared_memory.py).

The child holds no seed and no input generator: before each call it asks the parent for the
call's memory (a Call frame on fd 4) and blocks until the parent's "go" (on fd 3), by
which time the parent has written the inputs and poisoned the outputs. A region's first "go"
carries its size and layout, and its fd (on GPU hosts, the CUDA IPC handle of the parent's
device allocation: common/device_memory.py) arrives on the region socket (fd 5) just before.
"""

from __future__ import annotations

import socket
from collections.abc import Callable

import torch

from judge.harness.common.device_memory import HANDLE_BYTES, DeviceRegion
from judge.harness.common.frames import Call, Frame, Go, Grant
from judge.harness.common.shared_memory import Region, Slot, receive_region


class Refused(Exception):
    """The parent answered a call request with stop (a verdict is known) or not at all."""


class SharedSets:
    def __init__(
        self,
        ask: Callable[[Frame], Go],
        sock: socket.socket,
        input_names: list[str],
        output_names: list[str],
    ) -> None:
        self.ask = ask
        self.sock = sock
        self.input_names = input_names
        self.output_names = output_names
        self.regions: dict[str, Region | DeviceRegion] = {}

    def acquire(self, request: Call) -> tuple[str, list[torch.Tensor], list[torch.Tensor]]:
        """Ask for one call's memory; (region key, inputs, outputs) once the parent says go."""
        return self.attach(self.granted(request)[0])

    def acquire_batch(self, request: Call) -> list[tuple[int, str, list[torch.Tensor], list[torch.Tensor]]]:
        """Ask for a batch of timed calls' memory (a request with batch set: the parent decides
        how many); per call, (input set, region key, inputs, outputs) once the parent says go."""
        return [(grant.set, *self.attach(grant)) for grant in self.granted(request)]

    def granted(self, request: Call) -> list[Grant]:
        answer = self.ask(request)
        if not answer.go:
            raise Refused
        if not answer.calls:
            raise RuntimeError("the parent's go named no calls")
        return answer.calls

    def attach(self, grant: Grant) -> tuple[str, list[torch.Tensor], list[torch.Tensor]]:
        key = grant.region
        region = self.regions.get(key)
        if region is None:
            if grant.size is None or grant.slots is None:
                raise RuntimeError(f"the parent's go named region {key} without its layout")
            slots = [Slot.from_frame(s, grant.size) for s in grant.slots]
            received = receive_region(self.sock, HANDLE_BYTES)
            if isinstance(received, int):
                region = Region.attach(received, grant.size, slots)
            else:
                region = DeviceRegion.attach(received, grant.size, slots)
            self.regions[key] = region
        views = region.views
        return key, [views[n] for n in self.input_names], [views[n] for n in self.output_names]

    def release(self, key: str) -> None:
        region = self.regions.pop(key, None)
        if region is not None:
            region.close()

    def release_all(self) -> None:
        for key in list(self.regions):
            self.release(key)
