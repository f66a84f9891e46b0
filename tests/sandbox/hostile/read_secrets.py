"""Try to read every secret we can name (paths come from argv, as an attacker could guess them)."""

import errno
import json
import os
import sys

paths = [
    "/etc/shadow",
    "/etc/gshadow",
    "/root/.ssh/id_rsa",
    "/root/.bash_history",
    "/proc/1/environ",
    "/proc/1/cmdline",
] + sys.argv[1:]
outcome = {}
for p in paths:
    try:
        with open(p, "rb") as f:
            data = f.read(4096)
        outcome[p] = "read:" + data[:60].decode(errors="replace")
    except OSError as e:
        outcome[p] = errno.errorcode.get(e.errno, str(e.errno))
print(json.dumps(outcome))
