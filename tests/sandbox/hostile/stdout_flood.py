"""Gigabytes of stdout (or argv[1] bytes, then a normal exit)."""

import os
import sys

limit = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 40
block = b"A" * (1 << 16)
sent = 0
while sent < limit:
    sent += os.write(1, block[: min(len(block), limit - sent)])
os.write(2, b"stderr still works\n")
