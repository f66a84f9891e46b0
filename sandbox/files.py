"""Writing a job's products where later jobs read them, without ever trusting a path.

Compiled libraries and Triton caches that a later job loads must be written by trusted code
only, into a directory no job can write (bind it `readable`, never writable). The bytes come
from run_collect (a pipe), never from a path inside a job's directory.
"""

from __future__ import annotations

import os
import re
import secrets

_SAFE = re.compile(r"[A-Za-z0-9_.+-]{1,128}")


def write_new_file(directory: str, name: str, data: bytes, mode: int = 0o644) -> str:
    """Atomically create `directory/name` with `data`; never follows a symlink, never overwrites
    through one: a temp file is created with O_EXCL|O_NOFOLLOW relative to a directory fd, then
    renamed into place. Returns the final path."""
    if not _SAFE.fullmatch(name) or name in (".", ".."):
        raise ValueError(f"unsafe file name {name!r}")
    dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        temp = f".{name}.{secrets.token_hex(6)}.tmp"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=dir_fd)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.rename(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    finally:
        os.close(dir_fd)
    return os.path.join(directory, name)
