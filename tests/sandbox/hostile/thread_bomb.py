"""Thread bomb: threads count against the process limit too."""

import threading
import time

n = 0
while True:
    try:
        threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()
        n += 1
    except RuntimeError:
        print("threads started before the limit:", n, flush=True)
        raise
