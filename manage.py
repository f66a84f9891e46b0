#!/usr/bin/env python3
"""Django's command-line utility. The web side's source root is platform/ (see DESIGN.md)."""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent


def main() -> None:
    # platform/ holds the `gridstride` package; the repository root holds judge/ (spec, protocol).
    sys.path[:0] = [str(ROOT / "platform"), str(ROOT)]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gridstride.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
