"""Dump the environment and the process's own /proc view of it."""

import json
import os

with open("/proc/self/environ", "rb") as f:
    raw = f.read().decode(errors="replace")
print(json.dumps({"environ": dict(os.environ), "proc_environ": raw}))
