"""Entry point of the sandboxed child: `python -m judge.harness.child` (see child_job.py).

Kept tiny so that the real code runs under its own module name (judge.harness.child.job), where
the guard can find and watch its functions; code run as __main__ would escape that snapshot.
"""

from __future__ import annotations

if __name__ == "__main__":
    from judge.harness.child.job import main

    main()
