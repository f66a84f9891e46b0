"""Static checks of a submission's source before anything runs (stdlib only).

- forbidden strings: each problem lists library calls a language may not use (torch.matmul in a
  Triton problem, cublas in CUDA). They are searched in the code with comments removed, so a
  comment that mentions cuBLAS is fine while a call is not. This is the cheap first line; on GPU
  hosts the profiler's kernel list is the second (it sees calls hidden behind getattr tricks).
- the CUDA entry point: `extern "C" void solve(...)` must exist with as many parameters as the
  problem's signature, because ctypes cannot check a C signature at call time.
- library kernel names: the patterns that identify cuBLAS/cuDNN/CUTLASS/ATen compute kernels in
  a profiler kernel list.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    needle: str
    line: int
    text: str


def _strip_python_comments(source: str) -> str:
    """The source with comments blanked (strings kept: `getattr(torch, "matmul")` stays visible)."""
    out = source.splitlines(keepends=True)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return source  # unparsable: scan as it is; the import will report the syntax error
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            line = out[row - 1]
            out[row - 1] = line[:col] + " " * (len(tok.string)) + line[col + len(tok.string) :]
    return "".join(out)


_C_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def _strip_c_comments(source: str) -> str:
    # Keep newlines inside block comments so line numbers stay right.
    return _C_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), source)


def strip_comments(source: str, language: str) -> str:
    return _strip_c_comments(source) if language == "cuda" else _strip_python_comments(source)


def find_forbidden(source: str, language: str, needles: tuple[str, ...] | list[str]) -> list[Finding]:
    """Every occurrence of a forbidden string in the code (comments excluded), in line order."""
    code = strip_comments(source, language)
    findings = []
    for number, line in enumerate(code.splitlines(), start=1):
        lowered = line.lower()
        for needle in needles:
            if needle and needle.lower() in lowered:
                findings.append(Finding(needle=needle, line=number, text=source.splitlines()[number - 1].strip()))
    return findings


# ---------------------------------------------------------------------------------------------
# The CUDA entry point.

_SOLVE = re.compile(r'extern\s+"C"\s*(?:__host__\s+)?void\s+solve\s*\(([^)]*)\)', re.S)
_SOLVE_BLOCK = re.compile(r'extern\s+"C"\s*\{')


def cuda_solve_parameters(source: str) -> list[str] | None:
    """The parameter list of `extern "C" void solve(...)`, or None when there is none."""
    code = _strip_c_comments(source)
    match = _SOLVE.search(code)
    if match is None and _SOLVE_BLOCK.search(code):
        match = re.search(r"\bvoid\s+solve\s*\(([^)]*)\)", code)
    if match is None:
        return None
    params = match.group(1).strip()
    if params in ("", "void"):
        return []
    return [p.strip() for p in params.split(",")]


# ---------------------------------------------------------------------------------------------
# Library kernels in a profiler list.

# Substrings (case-insensitive) of kernel names that come from libraries, not from the
# submission. They name library namespaces and symbol prefixes rather than generic words, so a
# contestant's own `gemm_kernel` or `softmax_kernel` is never mistaken for a library's.
LIBRARY_KERNEL_PATTERNS: tuple[str, ...] = (
    "at::native::",  # every ATen CUDA kernel (elementwise, reduce, softmax, index, ...)
    "at_cuda_detail",
    "cublas",
    "cublaslt",
    "cutlass::",
    "cutlass_",
    "sm90_xmma",
    "sm80_xmma",
    "sm100_xmma",
    "xmma_gemm",
    "nvjet_",  # cuBLAS 12.8+ GEMM kernels
    "gemv2",
    "gemvx",
    "splitkreduce",
    "cudnn",
    "cunn_",  # PyTorch's legacy softmax kernels (cunn_SoftMaxForward)
    "softmax_warp_forward",
    "flash_fwd",  # PyTorch's SDPA / flash-attention kernels
    "fmha_",
    "pytorch_flash",
    "cupy_",  # CuPy's generated elementwise/reduction kernels (cupy_add, cupy_sum)
    "cub::",  # CUB device-wide algorithms
    "thrust::",
)

# Library kernels that only move or fill memory: allowed (zeroing an accumulator before atomics,
# a dtype cast or copy of an operand is not the problem's computation).
ALLOWED_LIBRARY_KERNELS: tuple[str, ...] = ("fillfunctor", "direct_copy_kernel", "copy_kernel", "memset", "memcpy")


def library_kernels(names: list[str], extra_patterns: tuple[str, ...] = ()) -> list[str]:
    """The kernel names that identify library compute (sorted, unique)."""
    found = set()
    patterns = tuple(p.lower() for p in LIBRARY_KERNEL_PATTERNS + tuple(extra_patterns))
    for name in names:
        low = name.lower()
        if any(a in low for a in ALLOWED_LIBRARY_KERNELS):
            continue
        if any(p in low for p in patterns):
            found.add(name)
    return sorted(found)
