"""The trusted side of judging (docs/architecture.md): admission, the child's plan, checking,
the rules, the verdict. Nothing here runs submitted code."""
