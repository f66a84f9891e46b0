"""Per-job control groups: memory and process limits, CPU accounting, and a reliable kill.

Prefers cgroup v2 (what the GPU host has: memory, pids, cgroup.kill). A host in "hybrid" mode
(v2 mounted without controllers, memory and pids on v1, as on the dev machines) gets the v2 tree
for cgroup.kill / CPU accounting / populated events and the v1 hierarchies for the limits. Only
the trusted parent (root) ever writes these files; the sandbox never sees /sys at all.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import logging
import os
import secrets
import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger("sandbox")

BASE_NAME = "gridstride-sandbox"
_counter = itertools.count(1)


def _read(path: Path) -> str:
    with open(path) as f:
        return f.read()


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


def _keyed(path: Path) -> dict[str, int]:
    """Parse "key value" lines (memory.events, pids.events, cpu.stat, memory.oom_control)."""
    out: dict[str, int] = {}
    try:
        text = _read(path)
    except OSError:
        return out
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            out[parts[0]] = int(parts[1])
    return out


@dataclass
class _Mount:
    fstype: str
    root: str
    point: Path
    options: set[str]


def _mounts() -> list[_Mount]:
    found = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields, rfields = left.split(), right.split()
            if len(rfields) < 3:
                continue
            found.append(_Mount(rfields[0], fields[3], Path(fields[4]), set(rfields[2].split(","))))
    return found


def _own_paths() -> dict[str, str]:
    """controller (or "" for v2) -> this process's cgroup path."""
    own: dict[str, str] = {}
    with open("/proc/self/cgroup") as f:
        for line in f:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for name in controllers.split(",") if controllers else [""]:
                own[name] = path
    return own


@dataclass
class Layout:
    """What this host offers; discovered once per process."""

    v2_base: Path | None = None
    v2_controllers: set[str] = field(default_factory=set)
    v2_kill: bool = False
    v1_bases: dict[str, Path] = field(default_factory=dict)  # "memory"/"pids" -> base dir
    problems: dict[str, str] = field(default_factory=dict)

    @property
    def memory(self) -> bool:
        return "memory" in self.v2_controllers or "memory" in self.v1_bases

    @property
    def pids(self) -> bool:
        return "pids" in self.v2_controllers or "pids" in self.v1_bases

    @property
    def kill(self) -> bool:
        return self.v2_kill

    @property
    def any(self) -> bool:
        return self.v2_base is not None or bool(self.v1_bases)


def _enable(subtree_control: Path, names: set[str]) -> set[str]:
    enabled = set(_read(subtree_control).split())
    for name in sorted(names - enabled):
        try:
            _write(subtree_control, f"+{name}")
            enabled.add(name)
        except OSError as e:
            log.debug("cannot enable %s in %s: %s", name, subtree_control, e)
            if e.errno == errno.EBUSY:
                raise
    return enabled


def _evacuate(root: Path) -> None:
    """A container's cgroup root holds its own processes, which forbids enabling controllers for
    children ("no internal processes"); move them into a leaf, as container inits do."""
    leaf = root / "gridstride-worker"
    leaf.mkdir(exist_ok=True)
    for pid in _read(root / "cgroup.procs").split():
        with contextlib.suppress(OSError):
            _write(leaf / "cgroup.procs", pid)
    log.warning("sandbox: moved this container's processes into %s to delegate cgroup controllers", leaf)


def _remount_writable(mount: _Mount | None) -> bool:
    """Docker mounts the container's own cgroup tree read-only; with CAP_SYS_ADMIN the worker
    (the only thing in the judge container) makes it writable to create job groups."""
    if mount is None:
        return False
    from sandbox import _libc

    flags = _libc.MS_REMOUNT | _libc.MS_NOSUID | _libc.MS_NODEV | _libc.MS_NOEXEC
    try:
        _libc.mount(None, str(mount.point), None, flags)
    except OSError as e:
        log.debug("cannot remount %s read-write: %s", mount.point, e)
        return False
    log.warning("sandbox: remounted %s read-write to create per-job cgroups", mount.point)
    return True


def _discover_v2(layout: Layout, mounts: list[_Mount]) -> None:
    override = os.environ.get("GRIDSTRIDE_SANDBOX_CGROUP")
    v2 = next((m for m in mounts if m.fstype == "cgroup2"), None)
    if v2 is None and not override:
        layout.problems["cgroup_v2"] = "no cgroup2 file system is mounted"
        return
    parent = Path(override).parent if override else v2.point  # type: ignore[union-attr]
    base = Path(override) if override else parent / BASE_NAME
    try:
        base.mkdir(exist_ok=True)
    except OSError as e:
        if e.errno != errno.EROFS or not _remount_writable(v2):
            layout.problems["cgroup_v2"] = f"cannot create {base}: {e.strerror}"
            return
        base.mkdir(exist_ok=True)
    wanted = {"memory", "pids"} & set(_read(parent / "cgroup.controllers").split())
    if not override:
        try:
            _enable(parent / "cgroup.subtree_control", wanted)
        except OSError:
            _evacuate(parent)
            with contextlib.suppress(OSError):
                _enable(parent / "cgroup.subtree_control", wanted)
    available = set(_read(base / "cgroup.controllers").split())
    try:
        layout.v2_controllers = _enable(base / "cgroup.subtree_control", wanted & available)
    except OSError as e:
        layout.problems["cgroup_v2"] = f"cannot enable controllers in {base}: {e.strerror}"
    layout.v2_base = base
    probe = base / f"probe-{os.getpid()}-{secrets.token_hex(3)}"
    try:
        probe.mkdir()
        layout.v2_kill = (probe / "cgroup.kill").exists()
        probe.rmdir()
    except OSError as e:
        layout.problems["cgroup_v2"] = f"cannot create a child cgroup in {base}: {e.strerror}"
        layout.v2_base = None


def _discover_v1(layout: Layout, mounts: list[_Mount], own: dict[str, str]) -> None:
    for name in ("memory", "pids"):
        if name in layout.v2_controllers:
            continue
        mount = next((m for m in mounts if m.fstype == "cgroup" and name in m.options), None)
        if mount is None:
            continue
        path = own.get(name, "/")
        if mount.root != "/" and path.startswith(mount.root):
            path = path[len(mount.root) :]
        base = mount.point / path.lstrip("/") / BASE_NAME
        try:
            base.mkdir(exist_ok=True)
            layout.v1_bases[name] = base
        except OSError as e:
            layout.problems[f"cgroup_v1_{name}"] = f"cannot create {base}: {e.strerror}"


def _reap_stale(layout: Layout) -> None:
    """Remove job cgroups left by dead workers (killing anything still inside)."""
    bases = ([layout.v2_base] if layout.v2_base else []) + list(layout.v1_bases.values())
    for base in bases:
        for child in base.glob("job-*"):
            try:
                owner = int(child.name.split("-")[1])
            except (IndexError, ValueError):
                continue
            if owner == os.getpid() or Path(f"/proc/{owner}").exists():
                continue
            _kill_dir(child)
            with contextlib.suppress(OSError):
                child.rmdir()


def _kill_dir(path: Path) -> None:
    if (path / "cgroup.kill").exists():
        with contextlib.suppress(OSError):
            _write(path / "cgroup.kill", "1")
        return
    for _ in range(100):
        try:
            pids = [int(p) for p in _read(path / "cgroup.procs").split()]
        except OSError:
            return
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)


_layout: Layout | None = None
_layout_lock = threading.Lock()


def layout() -> Layout:
    global _layout
    with _layout_lock:
        if _layout is None:
            found = Layout()
            if os.geteuid() != 0 and not os.environ.get("GRIDSTRIDE_SANDBOX_CGROUP"):
                found.problems["cgroup"] = "not root and no delegated GRIDSTRIDE_SANDBOX_CGROUP"
            elif "cgroup" in os.environ.get("GRIDSTRIDE_SANDBOX_DISABLE", "").split(","):
                found.problems["cgroup"] = "disabled by GRIDSTRIDE_SANDBOX_DISABLE"
            else:
                try:
                    mounts, own = _mounts(), _own_paths()
                    _discover_v2(found, mounts)
                    _discover_v1(found, mounts, own)
                    _reap_stale(found)
                except OSError as e:
                    found.problems["cgroup"] = f"discovery failed: {e}"
            _layout = found
        return _layout


class JobCgroup:
    """The cgroup(s) of one job. Created by the parent before the launcher joins them."""

    def __init__(self, lay: Layout, *, memory_bytes: int, max_processes: int) -> None:
        self.layout = lay
        name = f"job-{os.getpid()}-{next(_counter)}-{secrets.token_hex(4)}"
        self.dirs: list[Path] = []
        self.v2: Path | None = None
        self.v1: dict[str, Path] = {}
        try:
            if lay.v2_base is not None:
                self.v2 = lay.v2_base / name
                self.v2.mkdir()
                self.dirs.append(self.v2)
                if "memory" in lay.v2_controllers:
                    _write(self.v2 / "memory.max", str(memory_bytes))
                    if (self.v2 / "memory.swap.max").exists():
                        _write(self.v2 / "memory.swap.max", "0")
                    _write(self.v2 / "memory.oom.group", "1")
                if "pids" in lay.v2_controllers:
                    _write(self.v2 / "pids.max", str(max_processes))
            for controller, base in lay.v1_bases.items():
                path = base / name
                path.mkdir()
                self.dirs.append(path)
                self.v1[controller] = path
                if controller == "memory":
                    _write(path / "memory.limit_in_bytes", str(memory_bytes))
                    if (path / "memory.memsw.limit_in_bytes").exists():
                        _write(path / "memory.memsw.limit_in_bytes", str(memory_bytes))
                elif controller == "pids":
                    _write(path / "pids.max", str(max_processes))
        except OSError:
            self.destroy()
            raise

    @property
    def procs_files(self) -> list[str]:
        return [str(d / "cgroup.procs") for d in self.dirs]

    def cpu_seconds(self) -> float | None:
        if self.v2 is not None:
            usage = _keyed(self.v2 / "cpu.stat").get("usage_usec")
            return None if usage is None else usage / 1e6
        return None

    def peak_memory(self) -> int | None:
        try:
            if self.v2 is not None and "memory" in self.layout.v2_controllers:
                return int(_read(self.v2 / "memory.peak"))
            if "memory" in self.v1:
                return int(_read(self.v1["memory"] / "memory.max_usage_in_bytes"))
        except (OSError, ValueError):
            pass
        return None

    def oom_killed(self) -> bool:
        if self.v2 is not None and "memory" in self.layout.v2_controllers:
            return _keyed(self.v2 / "memory.events").get("oom_kill", 0) > 0
        if "memory" in self.v1:
            return _keyed(self.v1["memory"] / "memory.oom_control").get("oom_kill", 0) > 0
        return False

    def pids_exhausted(self) -> bool:
        if self.v2 is not None and "pids" in self.layout.v2_controllers:
            return _keyed(self.v2 / "pids.events").get("max", 0) > 0
        if "pids" in self.v1:
            return _keyed(self.v1["pids"] / "pids.events").get("max", 0) > 0
        return False

    def pids(self) -> set[int]:
        found: set[int] = set()
        for d in self.dirs:
            with contextlib.suppress(OSError, ValueError):
                found.update(int(p) for p in _read(d / "cgroup.procs").split())
        return found

    def kill(self) -> None:
        for d in self.dirs:
            _kill_dir(d)

    def wait_empty(self, timeout: float = 5.0) -> bool:
        deadline = time.monotonic() + timeout
        while True:
            if not self.pids():
                return True
            if time.monotonic() > deadline:
                return False
            self.kill()
            time.sleep(0.01)

    def destroy(self) -> None:
        """Kill what is left, confirm the group is empty, remove the directories."""
        self.kill()
        if not self.wait_empty():
            log.error("sandbox: processes %s survived cgroup kill in %s", sorted(self.pids()), self.dirs)
        for d in reversed(self.dirs):
            for _ in range(50):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)
        self.dirs = []
