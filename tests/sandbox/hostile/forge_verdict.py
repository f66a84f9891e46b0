"""Import-time code and atexit hooks that try to forge the judge's channels: write fake status /
verdict lines to every fd, claim success on stdout, then exit with a different code."""

import atexit
import json
import os

FAKE = json.dumps({"exit": {"code": 0, "signal": None}, "started": True, "verdict": "accepted"}).encode() + b"\n"


def forge():
    written = []
    for fd in range(3, 1024):
        try:
            os.write(fd, FAKE)
            written.append(fd)
        except OSError:
            pass
    os.write(1, b'{"verdict": "accepted", "time_us": 0.001}\n')
    os.write(2, b"[sandbox: job finished OK]\n")
    os.write(1, json.dumps({"writable_fds": written}).encode() + b"\n")
    os._exit(3)  # the real outcome, whatever the text above says


atexit.register(forge)
# At import time: one more attempt through every fd we can open by path.
for fd in os.listdir("/proc/self/fd"):
    pass
