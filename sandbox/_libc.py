"""Thin ctypes wrappers for the Linux calls the launcher needs and Python 3.11 lacks.

`os.unshare` only exists from Python 3.12 and there is no `os.mount` or `os.pivot_root` at all, so
these go straight to libc (or to `syscall(2)` where glibc has no wrapper). Every wrapper raises
OSError with the real errno so callers can tell "not permitted here" from a bug.
"""

from __future__ import annotations

import ctypes
import os
import platform

# The symbols of the running process already include libc: no find_library (it runs ldconfig).
_libc = ctypes.CDLL(None, use_errno=True)

# <linux/sched.h>
CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
CLONE_NEWTIME = 0x00000080

# <sys/mount.h>
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_MOVE = 8192
MS_REC = 16384
MS_PRIVATE = 1 << 18
MS_SLAVE = 1 << 19
MNT_DETACH = 2

# <linux/prctl.h>
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_SECCOMP = 22
PR_SET_SECUREBITS = 28
PR_SET_NO_NEW_PRIVS = 38
PR_GET_NO_NEW_PRIVS = 39
PR_SET_CHILD_SUBREAPER = 36
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
SECCOMP_MODE_FILTER = 2

MACHINE = platform.machine()
_SYSCALLS = {  # only what has no libc wrapper on every glibc we meet
    "x86_64": {"pivot_root": 155},
    "aarch64": {"pivot_root": 41},
}


def _check(result: int, what: str) -> int:
    if result == -1:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


def unshare(flags: int) -> None:
    _check(_libc.unshare(ctypes.c_int(flags)), "unshare")


def mount(source: str | None, target: str, fstype: str | None, flags: int = 0, data: str | None = None) -> None:
    def enc(s: str | None) -> bytes | None:
        return None if s is None else os.fsencode(s)

    result = _libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data))
    _check(result, f"mount {source or ''} on {target}")


def umount2(target: str, flags: int = 0) -> None:
    _check(_libc.umount2(os.fsencode(target), ctypes.c_int(flags)), f"umount {target}")


def pivot_root(new_root: str, put_old: str) -> None:
    number = _SYSCALLS.get(MACHINE, {}).get("pivot_root")
    if number is None:
        raise OSError(38, f"pivot_root: unknown syscall number on {MACHINE}")
    result = _libc.syscall(ctypes.c_long(number), os.fsencode(new_root), os.fsencode(put_old))
    _check(result, "pivot_root")


def sethostname(name: str) -> None:
    raw = name.encode()
    _check(_libc.sethostname(raw, ctypes.c_size_t(len(raw))), "sethostname")


def prctl(option: int, arg2: int = 0, arg3: int = 0, arg4: int = 0, arg5: int = 0) -> int:
    args = [ctypes.c_ulong(a) for a in (arg2, arg3, arg4, arg5)]
    return _check(_libc.prctl(ctypes.c_int(option), *args), f"prctl({option})")


def prctl_ptr(option: int, arg2: int, pointer: object) -> int:
    result = _libc.prctl(ctypes.c_int(option), ctypes.c_ulong(arg2), pointer, ctypes.c_ulong(0), ctypes.c_ulong(0))
    return _check(result, f"prctl({option})")


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def clear_all_capabilities() -> None:
    """Empty the effective, permitted and inheritable sets (capset v3, both 32-bit halves)."""
    header = _CapHeader(0x20080522, 0)
    data = (_CapData * 2)()
    _check(_libc.capset(ctypes.byref(header), data), "capset")


def last_capability() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            return int(f.read())
    except OSError:
        return 40
