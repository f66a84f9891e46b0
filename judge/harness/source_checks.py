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

import re
from dataclasses import dataclass

from judge import spec as specmod
from judge.harness.source_scan import c_comments_blanked, python_comments_blanked
from judge.protocol import MAX_SOURCE_BYTES


class SourceTooLarge(ValueError):
    """The checks run on at most MAX_SOURCE_BYTES: each is linear, so that bounds their time."""


@dataclass(frozen=True)
class Finding:
    needle: str
    line: int
    text: str


def _bounded(source: str) -> str:
    # Characters, not bytes: a check needs no encoding, and a source of n characters has at
    # least n bytes, so this never refuses what the byte limit before it accepted.
    if len(source) > MAX_SOURCE_BYTES:
        raise SourceTooLarge(
            f"the source has {len(source)} characters; the checks take at most {MAX_SOURCE_BYTES // 1024} KiB"
        )
    return source


def strip_comments(source: str, language: str) -> str:
    """The source with comments blanked (strings kept: `getattr(torch, "matmul")` stays visible);
    linear in the source's size (judge/harness/source_scan.py)."""
    source = _bounded(source)
    c_like = specmod.SOURCE_SUFFIX[language] == ".cu"  # C-family sources; every other one is Python
    return c_comments_blanked(source) if c_like else python_comments_blanked(source)


def find_forbidden(source: str, language: str, needles: tuple[str, ...] | list[str]) -> list[Finding]:
    """Every occurrence of a forbidden string in the code (comments excluded), in line order."""
    code = strip_comments(source, language)
    lowered_needles = [(needle, needle.lower()) for needle in needles if needle]
    original = source.splitlines()
    findings = []
    for number, line in enumerate(code.splitlines(), start=1):
        lowered = line.lower()
        for needle, low in lowered_needles:
            if low in lowered:
                text = original[number - 1].strip() if number <= len(original) else ""
                findings.append(Finding(needle=needle, line=number, text=text[:200]))
    return findings


# ---------------------------------------------------------------------------------------------
# The CUDA entry point.

_SOLVE = re.compile(r'extern\s+"C"\s*(?:__host__\s+)?void\s+solve\s*\(')
_SOLVE_BLOCK = re.compile(r'extern\s+"C"\s*\{')
_SOLVE_PLAIN = re.compile(r"\bvoid\s+solve\s*\(")


def cuda_solve_parameters(source: str) -> list[str] | None:
    """The parameter list of `extern "C" void solve(...)`, or None when there is none."""
    code = c_comments_blanked(_bounded(source))
    match = _SOLVE.search(code)
    if match is None and _SOLVE_BLOCK.search(code):
        match = _SOLVE_PLAIN.search(code)
    if match is None:
        return None
    # The first ')' after the opening one; found with one forward search, so a source of many
    # unclosed `solve(` costs no more than one.
    close = code.find(")", match.end())
    if close < 0:
        return None
    params = code[match.end() : close].strip()
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
    "at::cuda::",
    "at_cuda_detail",
    "cublas",
    "cutlass::",
    "cutlass_",
    "cutlass3x_",
    "xmma_",
    "nvjet_",  # cuBLAS 12.8+ GEMM kernels
    "gemv2t_",
    "gemv2n_",
    "gemvx::",
    "gemvnsp_",
    "gemmsn_",
    "gemmk1_",
    "splitkreduce",
    "cudnn",
    "cutensor",
    "cusparse",
    "cunn_",  # PyTorch's legacy softmax kernels (cunn_SoftMaxForward)
    "softmax_warp_forward",
    "flash_fwd",  # PyTorch's SDPA / flash-attention kernels
    "fmha_",
    "pytorch_flash",
    "cupy_",  # CuPy's generated elementwise/reduction kernels (cupy_add, cupy_sum)
    "cub::",  # CUB device-wide algorithms
    "thrust::",
)

# Prefixes of kernel names (after an optional "void "): cuBLAS/cuDNN kernels named after the
# architecture they were tuned for, and kernels generated by torch.compile (Inductor).
LIBRARY_KERNEL_PREFIXES: tuple[str, ...] = (
    "ampere_",
    "volta_",
    "turing_",
    "hopper_",
    "sm50_",
    "sm70_",
    "sm75_",
    "sm80_",
    "sm86_",
    "sm89_",
    "sm90_",
    "sm100_",
    "sm120_",
    "triton_poi_",
    "triton_red_",
    "triton_per_",
    "triton_tem_",
)

# Library kernels that only move or fill memory: allowed (zeroing an accumulator before atomics,
# a dtype cast or copy of an operand is not the problem's computation), but not counted as the
# submission's own kernels either.
ALLOWED_LIBRARY_KERNELS: tuple[str, ...] = ("fillfunctor", "direct_copy_kernel", "cupy_copy")
TRANSFER_PREFIXES: tuple[str, ...] = ("memcpy", "memset")


def _allowed(low: str) -> bool:
    return low.startswith(TRANSFER_PREFIXES) or any(a in low for a in ALLOWED_LIBRARY_KERNELS)


def _without_parameters(name: str) -> str:
    """A demangled kernel name without its trailing parameter list. Parentheses inside it, as in
    "(anonymous namespace)::" or a template argument, stay."""
    if not name.endswith(")"):
        return name
    depth = 0
    for i in range(len(name) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(name[i], 0)
        if depth == 0:
            return name[:i]
    return name


def _library(low: str, patterns: tuple[str, ...]) -> bool:
    # The name and template arguments only: a parameter list names types a contestant's own kernel
    # takes (a TMA kernel's `CUtensorMap` parameter contains "cutensor", the cuTENSOR library's name).
    name = _without_parameters(low)
    bare = name.removeprefix("void ").lstrip()
    return any(p in name for p in patterns) or bare.startswith(LIBRARY_KERNEL_PREFIXES)


def library_kernels(names: list[str], extra_patterns: tuple[str, ...] = ()) -> list[str]:
    """The kernel names that identify library compute (sorted, unique)."""
    patterns = tuple(p.lower() for p in LIBRARY_KERNEL_PATTERNS + tuple(extra_patterns))
    return sorted({n for n in names if not _allowed(n.lower()) and _library(n.lower(), patterns)})


def own_kernels(names: list[str]) -> list[str]:
    """The kernels that are neither library kernels nor copies/fills: the submission's own."""
    patterns = tuple(p.lower() for p in LIBRARY_KERNEL_PATTERNS)
    return sorted({n for n in names if not _allowed(n.lower()) and not _library(n.lower(), patterns)})
