"""PyTorch: a Python module whose solve() may use anything of torch on the judge's tensors."""

from __future__ import annotations

from judge.harness.languages.base import Language

PYTORCH = Language(name="pytorch", torch_cuda_on_cpu=True, watches_triton_compiles=True)
