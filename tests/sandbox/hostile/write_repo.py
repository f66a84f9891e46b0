"""Try to write into the repository: the judge's code, the sandbox, problems/, the root."""

import errno
import json
import os
import sys

outcome = {}
for d in sys.argv[1:]:
    path = os.path.join(d, "planted_by_submission.py")
    try:
        with open(path, "w") as f:
            f.write("raise SystemExit('owned')\n")
        outcome[d] = "written"
    except OSError as e:
        outcome[d] = errno.errorcode.get(e.errno, str(e.errno))
print(json.dumps(outcome))
