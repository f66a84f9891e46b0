"""What parent and child share (docs/architecture.md): framing, seeds, tensors, statistics.
Imports neither judge.harness.parent nor judge.harness.child."""
