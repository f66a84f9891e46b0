"""Plant torch.py / json.py in the working directory and in /tmp, then import."""

import importlib.util
import json as real_json
import os
import subprocess
import sys

for d in (os.getcwd(), "/tmp"):
    for name in ("torch", "numpy", "json", "sitecustomize", "usercustomize"):
        try:
            with open(os.path.join(d, name + ".py"), "w") as f:
                f.write("print('HIJACKED'); raise SystemExit(99)\n")
        except OSError:
            pass
spec = importlib.util.find_spec("torch")
child = subprocess.run([sys.executable, "-c", "import json, sys; print(json.__file__)"], capture_output=True, text=True)
print(
    real_json.dumps(
        {
            "torch_origin": spec.origin if spec else None,
            "child_json": child.stdout.strip(),
            "child_rc": child.returncode,
            "child_err": child.stderr[-300:],
        }
    )
)
