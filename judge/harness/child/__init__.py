"""The sandboxed child (docs/architecture.md): untrusted from the moment it imports the
submission. It never imports judge.harness.parent (tests/test_architecture.py)."""
