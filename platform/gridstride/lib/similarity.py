"""Code similarity by winnowing fingerprints, for human review (docs/assessments.md, "Signals").

A source becomes a token stream with what copying changes cheaply taken out: comments and
whitespace are dropped, every identifier that is not a keyword, a language builtin or an
attribute name (`tl.load`, `torch.empty`) becomes `V`, numbers become `N` and strings `S`. Every
k consecutive tokens are hashed; of each window of w consecutive hashes the smallest is kept
(winnowing: any shared run of at least w + k - 1 tokens shares a kept hash). A source's
fingerprint is the set of kept hashes, so reordering functions keeps almost all of them.

`similarity(a, b)` is the share of the smaller fingerprint found in the other, after removing
hashes in `ignore` (the starter code everyone begins from). It is a reason to look, never a
verdict: short kernels of one well-known algorithm resemble each other honestly.
"""

from __future__ import annotations

import hashlib
import keyword
import re
from collections.abc import Iterable
from dataclasses import dataclass

K = 12  # tokens per k-gram
W = 6  # k-grams per winnowing window
MIN_FINGERPRINTS = 8  # below this a source is too short to compare

_TOKEN = re.compile(
    r"""
    (?P<comment>\#[^\n]*|//[^\n]*|/\*.*?\*/)
  | (?P<string>[rbuRBU]{0,2}(?:'''.*?'''|\"\"\".*?\"\"\"|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"))
  | (?P<number>(?:0[xX][0-9a-fA-F_]+|\d[\d_]*\.?[\d_]*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)[a-zA-Z]*)
  | (?P<name>[A-Za-z_]\w*)
  | (?P<op>\*\*=?|//=?|<<=?|>>=?|->|::|\+\+|--|&&|\|\||[-+*/%&|^=<>!]=|[-+*/%&|^~=<>!?:;,.()\[\]{}@])
  | (?P<space>\s+)
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)

# Kept as they are: keywords of Python and C/CUDA, types and the builtins a kernel cannot rename.
_KEEP = frozenset(keyword.kwlist) | frozenset(
    """
    auto break case char const constexpr continue default do double else enum extern float for goto
    if inline int long register return short signed sizeof static struct switch typedef union unsigned
    void volatile while template typename namespace using bool true false nullptr size_t half
    __global__ __device__ __host__ __shared__ __restrict__ __syncthreads __syncwarp __forceinline__
    threadIdx blockIdx blockDim gridDim warpSize atomicAdd atomicMax __shfl_down_sync __shfl_xor_sync
    __shfl_sync __nv_bfloat16 __half float4 float2 int4 dim3 fmaxf fminf expf exp2f rsqrtf sqrtf
    range len min max print self cls
    """.split()  # noqa: SIM905 (a word list reads better than 80 quoted strings)
)


def tokens(source: str) -> list[str]:
    """The normalised token stream of a Python or CUDA C++ source."""
    out: list[str] = []
    after_dot = False
    for match in _TOKEN.finditer(source):
        kind, text = match.lastgroup, match.group()
        if kind in ("comment", "space"):
            continue
        if kind == "string":
            out.append("S")
        elif kind == "number":
            out.append("N")
        elif kind == "name":
            out.append(text if (after_dot or text in _KEEP) else "V")
        else:
            out.append(text)
        after_dot = text == "." and kind == "op"
    return out


def _hash(gram: list[str]) -> int:
    return int.from_bytes(hashlib.blake2b("\x1f".join(gram).encode(), digest_size=8).digest(), "big")


def fingerprint(source: str, k: int = K, w: int = W) -> frozenset[int]:
    """The winnowed k-gram hashes of a source."""
    toks = tokens(source)
    if len(toks) < k:
        return frozenset({_hash(toks)}) if toks else frozenset()
    hashes = [_hash(toks[i : i + k]) for i in range(len(toks) - k + 1)]
    if len(hashes) <= w:
        return frozenset({min(hashes)})
    kept = set()
    for i in range(len(hashes) - w + 1):
        window = hashes[i : i + w]
        kept.add(min(window))
    return frozenset(kept)


def similarity(a: frozenset[int], b: frozenset[int], ignore: frozenset[int] = frozenset()) -> float | None:
    """Share (0-1) of the smaller fingerprint present in the other; None when either is too short."""
    a, b = a - ignore, b - ignore
    if len(a) < MIN_FINGERPRINTS or len(b) < MIN_FINGERPRINTS:
        return None
    return len(a & b) / min(len(a), len(b))


@dataclass(frozen=True)
class Match:
    label: str
    score: float


def closest(
    source: str, others: Iterable[tuple[str, str]], ignore_sources: Iterable[str] = (), limit: int = 3
) -> list[Match]:
    """The `limit` most similar of `others` ((label, source) pairs), highest first."""
    ignore = frozenset().union(*(fingerprint(s) for s in ignore_sources))
    mine = fingerprint(source)
    found = []
    for label, other in others:
        score = similarity(mine, fingerprint(other), ignore)
        if score is not None:
            found.append(Match(label, score))
    found.sort(key=lambda m: -m.score)
    return found[:limit]
