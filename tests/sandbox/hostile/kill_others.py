"""Signal everything: the parent, PID 1, every pid we can name (argv: the worker's pid), kill(-1)."""

import errno
import json
import os
import signal
import sys

outcome = {}
targets = {"ppid": os.getppid(), "pid1": 1}
for i, p in enumerate(sys.argv[1:]):
    targets[f"host_pid_{i}"] = int(p)
for name, pid in targets.items():
    try:
        os.kill(pid, signal.SIGKILL)
        outcome[name] = "sent"
    except OSError as e:
        outcome[name] = errno.errorcode.get(e.errno, str(e.errno))
for sig in (signal.SIGTERM, signal.SIGKILL):
    try:
        os.kill(-1, sig)  # everyone we may signal, except ourselves
        outcome[f"all_{sig.name}"] = "sent"
    except OSError as e:
        outcome[f"all_{sig.name}"] = errno.errorcode.get(e.errno, str(e.errno))
visible = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
outcome["visible_pids"] = visible
print(json.dumps(outcome))
