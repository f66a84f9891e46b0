"""Write one file past the file-size limit. Python ignores SIGXFSZ, so it sees EFBIG (a program
that keeps the default action is killed by SIGXFSZ instead: see the test)."""

import errno
import json

written = 0
block = b"y" * (1 << 20)
try:
    with open("/tmp/big", "wb") as f:
        while True:
            written += f.write(block)
            f.flush()
except OSError as e:
    print(json.dumps({"error": errno.errorcode.get(e.errno), "written": written}))
