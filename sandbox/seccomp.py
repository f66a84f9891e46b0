"""A small seccomp-BPF deny-list, built and loaded with ctypes (no libseccomp needed).

The filter is a deny-list on purpose: CUDA, Triton, nvcc and PyTorch use a long and changing tail
of system calls, and an allow-list that misses one fails in ways a user cannot debug. What it
denies are the calls that reach other processes (ptrace, process_vm_*, pidfd_getfd, kcmp), the
kernel's large attack surfaces a kernel benchmark never needs (io_uring, bpf, perf_event_open,
userfaultfd, keyctl), and everything that changes the sandbox itself (mount family, setns,
unshare, namespace-creating clone flags, chroot, pivot_root). memfd_create stays allowed: the
CUDA driver needs it (measured on the H200).

Layout of the program (classic BPF over struct seccomp_data):
  load arch; if not x86_64 -> kill the process (blocks the i386 int 0x80 door)
  load nr;   if nr >= 0x40000000 -> EPERM (the x32 ABI door)
  for each denied nr: if nr == N -> EPERM
  clone: if (flags & CLONE_NEW*) -> EPERM; clone3 -> ENOSYS (its flags sit in memory BPF cannot
  read; glibc then falls back to clone, which is checked)
  socket: family AF_UNIX -> allow; AF_NETLINK with NETLINK_ROUTE -> allow; other netlink
  protocols -> EPROTONOSUPPORT; every other family -> EAFNOSUPPORT
  socketpair: AF_UNIX -> allow; else EAFNOSUPPORT
  allow

Socket families are an allow-list, unlike the calls: a judged program needs no network, and the
network namespace does not cover every family (AF_VSOCK reaches the host's vsock port space,
which is not namespaced). What stays, and why:
- AF_UNIX: the CUDA driver talks to the MPS control daemon and nvidia-persistenced over Unix
  sockets, and Python's multiprocessing and subprocess plumbing uses socketpair(AF_UNIX). Unix
  sockets only reach paths the job can see (none of the host's) and its own network namespace's
  abstract names.
- AF_NETLINK, protocol NETLINK_ROUTE only: glibc's getaddrinfo (AI_ADDRCONFIG), getifaddrs and
  if_nameindex ask it which interfaces exist; in the job's network namespace that is one loopback
  that is down. Other netlink protocols are refused: NETLINK_KOBJECT_UEVENT would deliver the
  host's device events (the namespace belongs to the initial user namespace).
AF_INET and AF_INET6 are refused too (EAFNOSUPPORT, what a kernel without them answers): the
namespace has no route anywhere, and nothing a submission does needs one.
"""

from __future__ import annotations

import ctypes
import errno
import struct

from sandbox import _libc

AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000

# x86_64 syscall numbers (arch/x86/entry/syscalls/syscall_64.tbl).
DENIED_X86_64: dict[str, int] = {
    "ptrace": 101,
    "syslog": 103,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "kcmp": 312,
    "pidfd_getfd": 438,
    "process_madvise": 440,
    "keyctl": 250,
    "add_key": 248,
    "request_key": 249,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "bpf": 321,
    "perf_event_open": 298,
    "userfaultfd": 323,
    "mount": 165,
    "umount2": 166,
    "pivot_root": 155,
    "chroot": 161,
    "setns": 308,
    "unshare": 272,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "mount_setattr": 442,
    "name_to_handle_at": 303,
    "open_by_handle_at": 304,
    "kexec_load": 246,
    "kexec_file_load": 320,
    "init_module": 175,
    "finit_module": 313,
    "delete_module": 176,
    "acct": 163,
    "swapon": 167,
    "swapoff": 168,
    "reboot": 169,
    "quotactl": 179,
    "lookup_dcookie": 212,
}
CLONE_X86_64 = 56
CLONE3_X86_64 = 435
SOCKET_X86_64 = 41
SOCKETPAIR_X86_64 = 53
AF_UNIX, AF_NETLINK, NETLINK_ROUTE = 1, 16, 0
NAMESPACE_FLAGS = (
    _libc.CLONE_NEWNS
    | _libc.CLONE_NEWCGROUP
    | _libc.CLONE_NEWUTS
    | _libc.CLONE_NEWIPC
    | _libc.CLONE_NEWUSER
    | _libc.CLONE_NEWPID
    | _libc.CLONE_NEWNET
    | _libc.CLONE_NEWTIME
)

# Classic BPF opcodes.
BPF_LD_W_ABS = 0x20
BPF_JEQ_K = 0x15
BPF_JGE_K = 0x35
BPF_JSET_K = 0x45
BPF_RET_K = 0x06
SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000
OFFSET_NR, OFFSET_ARCH, OFFSET_ARG0, OFFSET_ARG2 = 0, 4, 16, 32  # args: low 32 bits (little endian)


def supported() -> bool:
    return _libc.MACHINE == "x86_64"


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k & 0xFFFFFFFF)


def build_program() -> bytes:
    """The filter as raw `struct sock_filter` records."""
    eperm = SECCOMP_RET_ERRNO | errno.EPERM
    enosys = SECCOMP_RET_ERRNO | errno.ENOSYS
    prog = [
        _insn(BPF_LD_W_ABS, 0, 0, OFFSET_ARCH),
        _insn(BPF_JEQ_K, 1, 0, AUDIT_ARCH_X86_64),
        _insn(BPF_RET_K, 0, 0, SECCOMP_RET_KILL_PROCESS),
        _insn(BPF_LD_W_ABS, 0, 0, OFFSET_NR),
        _insn(BPF_JGE_K, 0, 1, X32_SYSCALL_BIT),
        _insn(BPF_RET_K, 0, 0, eperm),
    ]
    for number in sorted(set(DENIED_X86_64.values())):
        prog += [_insn(BPF_JEQ_K, 0, 1, number), _insn(BPF_RET_K, 0, 0, eperm)]
    allow = SECCOMP_RET_ALLOW
    no_family = SECCOMP_RET_ERRNO | errno.EAFNOSUPPORT
    prog += [
        # socket(family, type, protocol); every path of these nine ends in a return.
        _insn(BPF_JEQ_K, 0, 8, SOCKET_X86_64),
        _insn(BPF_LD_W_ABS, 0, 0, OFFSET_ARG0),
        _insn(BPF_JEQ_K, 3, 0, AF_UNIX),
        _insn(BPF_JEQ_K, 0, 3, AF_NETLINK),
        _insn(BPF_LD_W_ABS, 0, 0, OFFSET_ARG2),
        _insn(BPF_JEQ_K, 0, 2, NETLINK_ROUTE),
        _insn(BPF_RET_K, 0, 0, allow),
        _insn(BPF_RET_K, 0, 0, no_family),
        _insn(BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | errno.EPROTONOSUPPORT),
        # socketpair(family, ...): Unix only.
        _insn(BPF_JEQ_K, 0, 4, SOCKETPAIR_X86_64),
        _insn(BPF_LD_W_ABS, 0, 0, OFFSET_ARG0),
        _insn(BPF_JEQ_K, 0, 1, AF_UNIX),
        _insn(BPF_RET_K, 0, 0, allow),
        _insn(BPF_RET_K, 0, 0, no_family),
    ]
    prog += [
        _insn(BPF_JEQ_K, 0, 1, CLONE3_X86_64),
        _insn(BPF_RET_K, 0, 0, enosys),
        _insn(BPF_JEQ_K, 0, 3, CLONE_X86_64),
        _insn(BPF_LD_W_ABS, 0, 0, OFFSET_ARG0),  # low 32 bits of the flags (little endian)
        _insn(BPF_JSET_K, 0, 1, NAMESPACE_FLAGS),
        _insn(BPF_RET_K, 0, 0, eperm),
        _insn(BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW),
    ]
    return b"".join(prog)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install() -> None:
    """Load the filter into the calling process (inherited by children and kept across exec).

    no_new_privs must already be set (the kernel refuses a filter from an unprivileged process
    otherwise, and we want it set regardless).
    """
    if not supported():
        raise OSError(errno.ENOSYS, f"seccomp filter has no syscall table for {_libc.MACHINE}")
    raw = build_program()
    buffer = ctypes.create_string_buffer(raw, len(raw))
    prog = _SockFprog(len(raw) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    _libc.prctl_ptr(_libc.PR_SET_SECCOMP, _libc.SECCOMP_MODE_FILTER, ctypes.byref(prog))
