"""Open files until the open-file limit stops us."""

import errno
import json
import os

fds = []
try:
    while True:
        fds.append(os.open("/dev/null", os.O_RDONLY))
except OSError as e:
    print(json.dumps({"error": errno.errorcode.get(e.errno), "opened": len(fds)}))
