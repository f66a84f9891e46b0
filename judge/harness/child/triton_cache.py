"""The child's side of the Triton seed (parent/triton_seed.py builds it): copy the worker's
read-only cache of the judge's own kernels into this child's private Triton cache."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

SEED_ENV = "GRIDSTRIDE_TRITON_SEED"


def copy_seed(seed: str, cache_dir: str) -> int:
    """Copy the seed's cache into a child's private cache; returns the number of files.

    Triton's group files ("__grp__*.json") name their members by absolute path, here the build
    directory's: they are rewritten to the copies (Triton's layout is CACHE/<key>/<file>), or
    Triton would find the group empty and compile again."""
    source = Path(seed) / "cache"
    shutil.copytree(source, cache_dir, dirs_exist_ok=True)
    for path in Path(cache_dir).glob("*/__grp__*"):
        group = json.loads(path.read_text(encoding="utf-8"))
        members = group.get("child_paths") or {}
        group["child_paths"] = {
            name: os.path.join(cache_dir, Path(member).parent.name, Path(member).name)
            for name, member in members.items()
        }
        path.write_text(json.dumps(group), encoding="utf-8")
    return sum(1 for p in source.rglob("*") if p.is_file())
