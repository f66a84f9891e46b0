"""Compile one CUDA source inside the sandbox and send the library back on a pipe (stdlib only).

`python -m judge.harness.nvcc_child --source DIR/solution.cu --arch sm_90 --nvcc PATH --out-fd N`
runs nvcc with the source directory as working directory (so messages say "solution.cu(12): ...",
not a host path), writes the library into its own private temporary directory, and sends one
frame {"ok", "log"} followed by the library's bytes. The parent never looks into any directory
this process could write.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from judge.harness import framing
from judge.harness.errors import scrub_paths, trim

FLAGS = ["-shared", "-Xcompiler", "-fPIC", "-O3"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", required=True)
    parser.add_argument("--arch", required=True)
    parser.add_argument("--nvcc", required=True)
    parser.add_argument("--in-fd", type=int, default=3)
    parser.add_argument("--out-fd", type=int, default=4)
    args = parser.parse_args(argv)
    out = framing.open_writer(args.out_fd)
    source = Path(args.source)
    scratch = tempfile.mkdtemp(prefix="nvcc-")
    library = os.path.join(scratch, "solution.so")
    cmd = [args.nvcc, *FLAGS, f"-arch={args.arch}", "-o", library, source.name]
    proc = subprocess.run(cmd, cwd=source.parent, capture_output=True, text=True, errors="replace")
    log = (proc.stdout + proc.stderr).strip()
    log = trim(scrub_paths(log, {scratch + "/": "", str(source.parent) + "/": "", tempfile.gettempdir() + "/": ""}))
    if proc.returncode != 0 or not os.path.isfile(library):
        framing.write_frame(out, {"ok": False, "log": log or f"nvcc exited with status {proc.returncode}"})
        return 0
    with open(library, "rb") as fh:
        data = fh.read()
    framing.write_frame(out, {"ok": True, "log": log}, data)
    out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
