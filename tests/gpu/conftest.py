"""GPU suite: every test here needs CUDA; tests/conftest.py skips them on hosts without it."""
