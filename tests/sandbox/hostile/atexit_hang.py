"""An atexit hook that never returns: the job must still end at the wall limit."""

import atexit
import time

atexit.register(lambda: time.sleep(10**9))
print("main done", flush=True)
