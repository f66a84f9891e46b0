"""`python -m judge ...` (see judge/cli.py)."""

from __future__ import annotations

import sys

from judge.cli import main

if __name__ == "__main__":
    sys.exit(main())
