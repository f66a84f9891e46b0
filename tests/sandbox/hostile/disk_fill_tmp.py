"""Fill the private /tmp (and /dev/shm) with many files until the file system is full."""

import errno
import json

outcome = {}
block = b"x" * (1 << 20)
for d in ("/tmp", "/dev/shm"):
    written = 0
    try:
        for i in range(100000):
            with open(f"{d}/fill{i}", "wb") as f:
                for _ in range(4):
                    written += f.write(block)
                    f.flush()
    except OSError as e:
        outcome[d] = {"error": errno.errorcode.get(e.errno, str(e.errno)), "written": written}
print(json.dumps(outcome))
