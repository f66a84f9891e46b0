"""Try to write outside /tmp: the root, system and Python directories, the judge's code, /var."""

import errno
import json
import os
import sys

targets = [
    "/",
    "/usr",
    "/usr/local",
    "/etc",
    "/var/tmp",
    "/root",
    "/home",
    "/proc",
    "/dev",
    "/run",
    os.path.dirname(os.__file__),
    sys.prefix,
] + sys.argv[1:]
outcome = {}
for d in targets:
    path = os.path.join(d, "gridstride-hostile-write")
    try:
        with open(path, "wb") as f:
            f.write(b"x" * (1 << 20))
        outcome[d] = "written"
    except OSError as e:
        outcome[d] = errno.errorcode.get(e.errno, str(e.errno))
print(json.dumps(outcome))
