"""Judge-side tests; tests/conftest.py skips the `gpu`-marked ones on hosts without CUDA."""
