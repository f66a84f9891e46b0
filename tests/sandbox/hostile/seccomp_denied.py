"""The kernel's big attack surfaces must be denied; memfd_create must stay (CUDA needs it)."""

import ctypes
import errno
import json
import os

libc = ctypes.CDLL(None, use_errno=True)
calls = {
    "io_uring_setup": (425, 8, 0),
    "bpf": (321, 0, 0, 0),
    "perf_event_open": (298, 0, 0, -1, -1, 0),
    "keyctl": (250, 0, 0),
    "add_key": (248, 0, 0, 0, 0, 0),
    "userfaultfd": (323, 0),
    "kexec_load": (246, 0, 0, 0, 0),
    "init_module": (175, 0, 0, 0),
    "syslog": (103, 3, 0, 0),
}
outcome = {}
for name, args in calls.items():
    ctypes.set_errno(0)
    r = libc.syscall(*args)
    outcome[name] = "ok" if r != -1 else errno.errorcode.get(ctypes.get_errno(), "?")
fd = os.memfd_create("cuda-like")
os.write(fd, b"ok")
outcome["memfd_create"] = "ok"
print(json.dumps(outcome))
