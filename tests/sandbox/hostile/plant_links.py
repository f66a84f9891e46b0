"""Plant symlinks, hard links and FIFOs where a careless judge would read or clean up."""

import errno
import json
import os
import sys

outcome = {}
host_targets = sys.argv[1:] or ["/etc/passwd"]
for i, target in enumerate(host_targets):
    for d in ("/tmp", "/dev/shm", os.getcwd()):
        link = os.path.join(d, f"link{i}")
        try:
            os.symlink(target, link)
            outcome[link] = "symlink"
        except OSError as e:
            outcome[link] = errno.errorcode.get(e.errno)
        try:
            os.link(target, os.path.join(d, f"hard{i}"))
            outcome[os.path.join(d, f"hard{i}")] = "hardlink"
        except OSError as e:
            outcome[os.path.join(d, f"hard{i}")] = errno.errorcode.get(e.errno)
for name in ("out.so", "result.bin", "kernel.so"):
    try:
        os.symlink(host_targets[0], f"/tmp/{name}")
    except OSError:
        pass
try:
    os.mkfifo("/tmp/fifo.so")
    outcome["fifo"] = "made"
except OSError as e:
    outcome["fifo"] = errno.errorcode.get(e.errno)
# Also try to plant in the staging directory the launcher builds on.
for d in ("/run/gridstride-sandbox", "/run", "/var/lib/gridstride"):
    try:
        os.symlink("/etc/passwd", os.path.join(d, "x"))
        outcome[d] = "planted"
    except OSError as e:
        outcome[d] = errno.errorcode.get(e.errno)
print(json.dumps(outcome))
