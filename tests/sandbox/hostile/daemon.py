"""Leave a daemon behind (double fork + setsid) that outlives us, holding stdout open."""

import os
import sys
import time

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        open("/tmp/daemon-alive", "w").close()
        with open("/proc/self/comm", "w") as f:
            f.write("gs-hostile-daemon")
        while True:
            time.sleep(1)
    os._exit(0)
time.sleep(0.3)
print("parent exits, daemon pid left behind", flush=True)
sys.exit(0)
