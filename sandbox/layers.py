"""Which isolation layers this host gives us, found by launching one probe sandbox.

The probe asks the launcher for every layer in best-effort mode and records what held. Real jobs
then ask for exactly those layers in strict mode, so a layer that worked at start-up and fails
later is an error, never a silent downgrade. A host missing layers is logged once as a warning;
GRIDSTRIDE_SANDBOX_REQUIRE ("all" or a comma list) turns missing layers into a hard error, and
GRIDSTRIDE_SANDBOX_DISABLE (a comma list; "namespaces" and "cgroup" name groups) switches layers
off on purpose (tests use it to exercise the degraded paths).
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
from dataclasses import dataclass, field

from sandbox import cgroups
from sandbox.limits import Limits

log = logging.getLogger("sandbox")

NAMESPACE_LAYERS = ("netns", "pidns", "mountns", "ipcns", "utsns", "cgroupns")
PROCESS_LAYERS = ("uid_drop", "caps_dropped", "no_new_privs", "seccomp", "rlimits")
MOUNT_LAYERS = ("readonly_root", "private_tmp", "minimal_dev", "fresh_proc")
LAUNCH_LAYERS = NAMESPACE_LAYERS + PROCESS_LAYERS + MOUNT_LAYERS
CGROUP_LAYERS = ("cgroup_memory", "cgroup_pids", "cgroup_kill", "cgroup_cpu")
ALL_LAYERS = LAUNCH_LAYERS + CGROUP_LAYERS


class SandboxError(RuntimeError):
    """The sandbox itself could not be built or started (the judge's fault, not the job's)."""


@dataclass(frozen=True)
class Capabilities:
    layers: dict[str, bool]
    reasons: dict[str, str] = field(default_factory=dict)

    def active(self) -> list[str]:
        return [name for name in ALL_LAYERS if self.layers.get(name)]

    def missing(self) -> dict[str, str]:
        return {name: self.reasons.get(name, "unavailable") for name in ALL_LAYERS if not self.layers.get(name)}

    def __contains__(self, layer: object) -> bool:
        return bool(self.layers.get(str(layer)))


def disabled_layers() -> set[str]:
    names = {n.strip() for n in os.environ.get("GRIDSTRIDE_SANDBOX_DISABLE", "").split(",") if n.strip()}
    if "namespaces" in names:
        names |= set(NAMESPACE_LAYERS) | set(MOUNT_LAYERS)
    if "cgroup" in names:
        names |= set(CGROUP_LAYERS)
    if "mountns" in names:
        names |= set(MOUNT_LAYERS)
    return names


def _probe_launch(layers: list[str]) -> tuple[dict[str, bool], dict[str, str]]:
    from sandbox.job import _BOOTSTRAP  # the same bootstrap real jobs use
    from sandbox.plan import REPO, SANDBOX_GID, SANDBOX_UID, environment, mount_plan, rlimits

    limits = Limits(wall_seconds=30, cpu_seconds=10)
    config = {
        "argv": ["/bin/true"],
        "env": environment(None),
        "cwd": "/",
        "uid": SANDBOX_UID,
        "gid": SANDBOX_GID,
        "layers": layers,
        "best_effort": True,
        "cgroup_procs": [],
        "rlimits": rlimits(limits, memory_cgroup=False, pids_cgroup=False, gpu=None, warm=False),
        "mount": mount_plan(gpu=None, readable=(), limits=limits),
        "pass_fds": [],
    }
    config_r, config_w = os.pipe()
    status_r, status_w = os.pipe()
    os.write(config_w, json.dumps(config).encode())
    os.close(config_w)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-I", "-c", _BOOTSTRAP, str(REPO), str(config_r), str(status_w)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            pass_fds=(config_r, status_w),
            env={"PATH": "/usr/bin:/bin"},
            start_new_session=True,
        )
    finally:
        os.close(config_r)
        os.close(status_w)
    with os.fdopen(status_r, "rb") as status:
        lines = status.read().splitlines()
    _, stderr = proc.communicate(timeout=30)
    layers_seen: dict[str, bool] = {}
    reasons: dict[str, str] = {}
    started = False
    for line in lines:
        message = json.loads(line)
        layers_seen.update(message.get("layers", {}))
        reasons.update(message.get("reasons", {}))
        if "error" in message:
            reasons["launch"] = message["error"]
        started |= "started" in message
    if not started:
        detail = reasons.get("launch") or stderr.decode(errors="replace")[-2000:]
        raise SandboxError(f"the capability probe could not start a sandbox: {detail}")
    return layers_seen, reasons


_cached: Capabilities | None = None
_lock = threading.Lock()


def capabilities(refresh: bool = False) -> Capabilities:
    """The layers a job gets on this host (probed once per process, then cached)."""
    global _cached
    with _lock:
        if _cached is not None and not refresh:
            return _cached
        off = disabled_layers()
        layers: dict[str, bool] = {}
        reasons: dict[str, str] = {}
        seen, why = _probe_launch([name for name in LAUNCH_LAYERS if name not in off])
        for name in LAUNCH_LAYERS:
            layers[name] = name not in off and seen.get(name, False)
            if name in off:
                reasons[name] = "disabled by GRIDSTRIDE_SANDBOX_DISABLE"
            elif not layers[name]:
                reasons[name] = why.get(name, "not available on this host")
        lay = cgroups.layout()
        cgroup_why = "; ".join(lay.problems.values()) or "no cgroup controller available"
        for name, ok in (
            ("cgroup_memory", lay.memory),
            ("cgroup_pids", lay.pids),
            ("cgroup_kill", lay.kill),
            ("cgroup_cpu", lay.v2_base is not None),
        ):
            layers[name] = ok and name not in off
            if not layers[name]:
                reasons[name] = "disabled by GRIDSTRIDE_SANDBOX_DISABLE" if name in off else cgroup_why
        caps = Capabilities(layers, reasons)
        missing = caps.missing()
        if missing:
            log.warning(
                "sandbox: running WITHOUT these layers: %s",
                "; ".join(f"{k} ({v})" for k, v in missing.items()),
            )
        _check_required(caps)
        _cached = caps
        return caps


def _check_required(caps: Capabilities) -> None:
    required = os.environ.get("GRIDSTRIDE_SANDBOX_REQUIRE", "").strip()
    if not required:
        return
    names = ALL_LAYERS if required == "all" else tuple(n.strip() for n in required.split(",") if n.strip())
    absent = [n for n in names if n not in caps]
    if absent:
        raise SandboxError(f"required sandbox layers are missing: {', '.join(absent)}")


def wanted_layers(caps: Capabilities) -> set[str]:
    """The layers a real job asks the launcher for (strictly)."""
    return {name for name in LAUNCH_LAYERS if name in caps}
