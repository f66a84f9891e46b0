"""Hostile and broken sources for the bad-input tests of both suites: crafted worst cases (runs of
quotes and escapes, unterminated comments and strings, deep nesting, long lines, NUL, invalid
UTF-8 read as text, lone surrogates, bidirectional overrides) and seeded random mixes of them,
each cut to a given size. Seeds are fixed, so a failure names its case and reproduces."""

from __future__ import annotations

import random

LIMIT = 64 * 1024

# Fragments that steer a scanner into its costly or confusing states.
FRAGMENTS = (
    '\\"',
    "\\'",
    '"',
    "'",
    '"""',
    "'''",
    "\\",
    "\\\n",
    "/*",
    "*/",
    "/* ",
    "//",
    "#",
    "\n",
    "{",
    "}",
    "{{",
    'f"',
    "rf'",
    'R"x(',
    ')x"',
    "(",
    ")",
    "[",
    "]",
    ":",
    "x",
    " ",
    "\t",
    "\x00",
    "\ud800",
    "\udfff",
    "\u202e",
    "\u2066",
    "\ufffd",
    "\xff",
    "torch.matmul",
    "cublas",
    'extern "C" void solve(',
    "void solve(",
    'extern "C" {',
)


def repeat(fragment: str, size: int = LIMIT) -> str:
    return (fragment * (size // max(1, len(fragment)) + 1))[:size]


def crafted(size: int = LIMIT) -> dict[str, str]:
    """Named worst cases, each `size` characters long."""
    half = size // 2
    return {
        "escaped double quotes": '"' + repeat('\\"', size - 1),
        "escaped single quotes": "'" + repeat("\\'", size - 1),
        "escaped quotes in a triple string": '"""' + repeat('\\"', size - 3),
        "open block comments": repeat("/* "),
        "unterminated block comment": "/*" + repeat("x", size - 2),
        "line comments spliced": repeat("// \\\n"),
        "hash lines": repeat("#\n"),
        "unterminated strings per line": repeat('"abc\n'),
        "nested f-strings": repeat('f"{', half) + repeat('"}', half),
        "deep brackets": repeat("[", half) + repeat("]", half),
        "one long line": repeat("x = 1; "),
        "many findings": repeat("torch.matmul(a, b)\n"),
        "unclosed extern solve": repeat('extern "C" void solve('),
        "unclosed plain solve": 'extern "C" {' + repeat("void solve(", size - 12),
        "raw strings unclosed": repeat('R"x('),
        "nul bytes": repeat("\x00"),
        "lone surrogates": repeat("\ud800"),
        "rtl overrides": repeat("\u202e#\u2066"),
        "invalid utf-8 read with replacement": (b"\xff\xfe\x80" * (size // 3 + 1)).decode("utf-8", errors="replace")[
            :size
        ],
    }


def mixed(seed: int, size: int = LIMIT) -> str:
    """A seeded random run of FRAGMENTS, favouring long runs of one fragment (what is costly)."""
    rng = random.Random(seed)
    parts: list[str] = []
    total = 0
    while total < size:
        fragment = rng.choice(FRAGMENTS)
        run = fragment * rng.choice((1, 1, 2, 5, 50, 500))
        parts.append(run)
        total += len(run)
    return "".join(parts)[:size]
