"""Where the CLI keeps the server URL and the token: ~/.config/gridstride/config.json (mode 600)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

DEFAULT_SERVER = "http://127.0.0.1:8000"


def path() -> Path:
    explicit = os.environ.get("GRIDSTRIDE_CONFIG")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "gridstride" / "config.json"


def load() -> dict[str, Any]:
    try:
        data = json.loads(path().read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise SystemExit(f"gridstride: cannot read {path()}: {exc}") from None
    return data if isinstance(data, dict) else {}


def save(data: dict[str, Any]) -> Path:
    target = path()
    target.parent.mkdir(parents=True, exist_ok=True)
    # Created private: the token in it lets anyone submit in your name.
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(data, f, indent=2)
    os.chmod(target, 0o600)
    return target
