"""mount, chroot, setuid/setgid, new namespaces (unshare, clone flags), setns, pivot_root, sethostname."""

import ctypes
import errno
import json
import os

libc = ctypes.CDLL(None, use_errno=True)
outcome = {}


def attempt(name, fn):
    try:
        fn()
        outcome[name] = "ok"
    except OSError as e:
        outcome[name] = errno.errorcode.get(e.errno, str(e.errno))


def c(rc):
    if rc == -1:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))


attempt("mount_tmpfs", lambda: c(libc.mount(b"none", b"/tmp", b"tmpfs", 0, None)))
attempt("remount_root_rw", lambda: c(libc.mount(None, b"/", None, 32, None)))
attempt("chroot", lambda: os.chroot("/tmp"))
attempt("setuid0", lambda: os.setuid(0))
attempt("setgid0", lambda: os.setgid(0))
attempt("setgroups", lambda: os.setgroups([0]))
attempt("unshare_user", lambda: c(libc.unshare(0x10000000)))
attempt("unshare_net", lambda: c(libc.unshare(0x40000000)))
attempt("clone_newuser", lambda: c(libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0)))
attempt("setns", lambda: c(libc.setns(os.open("/proc/self/ns/net", os.O_RDONLY), 0)))
attempt("pivot_root", lambda: c(libc.syscall(155, b"/tmp", b"/tmp")))
attempt("sethostname", lambda: c(libc.sethostname(b"pwned", 5)))
attempt("mknod_nvidia", lambda: os.mknod("/tmp/nvidia9", 0o20666, os.makedev(195, 9)))
attempt("open_by_handle_at", lambda: c(libc.syscall(304, -100, 0, 0)))
# A setuid-root binary must not raise privileges (nosuid mounts and no_new_privs).
for tool in ("/usr/bin/su", "/usr/bin/newgrp", "/usr/bin/passwd"):
    if os.path.exists(tool):
        import subprocess

        p = subprocess.run([tool, "root", "-c", "id -u"], stdin=subprocess.DEVNULL, capture_output=True, text=True)
        outcome[tool] = "ok" if p.stdout.strip() == "0" else "refused"
print(json.dumps(outcome))
