"""ptrace the parent and PID 1, and read another process's memory with process_vm_readv."""

import ctypes
import errno
import json
import os

libc = ctypes.CDLL(None, use_errno=True)
PTRACE_TRACEME, PTRACE_ATTACH, PTRACE_SEIZE = 0, 16, 0x4206
outcome = {}


def call(name, *args):
    ctypes.set_errno(0)
    r = libc.syscall(*args)
    outcome[name] = "ok" if r != -1 else errno.errorcode.get(ctypes.get_errno(), "?")


call("attach_parent", 101, PTRACE_ATTACH, os.getppid(), 0, 0)
call("seize_pid1", 101, PTRACE_SEIZE, 1, 0, 0)
call("traceme", 101, PTRACE_TRACEME, 0, 0, 0)
buf = ctypes.create_string_buffer(64)


class IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


local = IoVec(ctypes.cast(buf, ctypes.c_void_p), 64)
remote = IoVec(0x400000, 64)
call("process_vm_readv", 310, os.getppid(), ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
print(json.dumps(outcome))
