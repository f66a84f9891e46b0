"""Look at other processes through /proc: pids, environ, cmdline, fds, mountinfo, cgroup."""

import errno
import json
import os

outcome = {"pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()), "self": os.getpid()}
for name in ("1/environ", "1/cmdline", "1/maps", "1/root/etc/hostname", f"{os.getppid()}/environ", "cmdline"):
    try:
        with open(f"/proc/{name}", "rb") as f:
            outcome[name] = "read:" + f.read(100).decode(errors="replace")
    except OSError as e:
        outcome[name] = errno.errorcode.get(e.errno, str(e.errno))
with open("/proc/self/cgroup") as f:
    outcome["cgroup"] = f.read().strip()
with open("/proc/self/mountinfo") as f:
    outcome["mount_sources"] = sorted({line.split()[4] for line in f})
print(json.dumps(outcome))
