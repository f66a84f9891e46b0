"""The source checks the trusted parent runs before any sandbox limit applies: linear in the
source, bounded in time on hostile input, and blanking exactly the comments."""

from __future__ import annotations

import io
import time
import tokenize
from pathlib import Path

import pytest

from judge.harness.source_checks import SourceTooLarge, cuda_solve_parameters, find_forbidden, strip_comments
from judge.harness.source_scan import c_comments_blanked, python_comments_blanked
from tests.adversarial_sources import LIMIT, crafted, mixed

ROOT = Path(__file__).resolve().parents[2]
BOUND_S = 1.0  # for 64 KiB (docs/security.md, "Bad input")


def tokenize_blanked(source: str) -> str:
    """The stdlib tokenizer's view of the comments, blanked the same way (the oracle)."""
    lines = source.splitlines(keepends=True)
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            line = lines[row - 1]
            lines[row - 1] = line[:col] + " " * len(tok.string) + line[col + len(tok.string) :]
    return "".join(lines)


def python_corpus() -> list[Path]:
    folders = ("problems", "reference_kernels", "judge", "sandbox", "platform/gridstride", "bench", "tests")
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))


def test_on_every_python_file_of_the_repository_the_scanner_blanks_what_the_tokenizer_calls_comments() -> None:
    files = python_corpus()
    assert len(files) > 200
    compared = 0
    for path in files:
        source = path.read_text()
        try:
            expected = tokenize_blanked(source)
        except (tokenize.TokenError, SyntaxError):
            continue  # the corpus's syntax-error entries: nothing to compare against
        assert python_comments_blanked(source) == expected, path
        compared += 1
    assert compared > 200


@pytest.mark.parametrize(
    "source",
    [
        'x = "a # not a comment"  # a comment\n',
        "x = 'it''s' # c\n",
        'x = """\n# inside\n"""  # outside\n',
        "x = '''a\\''' # c\n",
        'x = r"\\"" # c\n',
        'x = rb"\\\\" # c\n',
        'x = f"{y!r:>10} # no" # yes\n',
        "x = f'{y:>10}' # c\n",
        'x = f"{y:\'>10}" # c\n',
        'x = f"{{#}}" # c\n',
        'x = f"{d["k"]}" # c\n',
        "x = (1 +  # c\n     2)\n",
        "x = 1 \\\n  # c\n",
        "def f():\n    '''doc # not'''\n    return '#'  # c\n",
        "s = u'#' + b'#' + Rb'#' + bR'#'  # c\n",
    ],
)
def test_tricky_python_is_scanned_as_the_tokenizer_scans_it(source: str) -> None:
    try:
        expected = tokenize_blanked(source)
    except (tokenize.TokenError, SyntaxError):
        pytest.skip("not valid for this Python's tokenizer")
    assert python_comments_blanked(source) == expected


def test_python_312_nested_same_quotes_in_a_field_do_not_hide_code() -> None:
    # Python 3.12 reads f"{d["#"]}" as one string: what follows it is code, not a comment.
    source = 'x = f"{d["#"]}" + torch.matmul(a, b)\n'
    assert "torch.matmul" in python_comments_blanked(source)
    assert [f.line for f in find_forbidden(source, "triton", ["torch.matmul"])] == [1]
    # A backslash before a brace does not stop the field from opening (raw or not).
    source = 'x = rf"\\{d["#"]}" + torch.matmul(a, b)\n'
    assert "torch.matmul" in python_comments_blanked(source)


def test_a_comment_inside_a_multiline_f_string_field_is_kept_as_code() -> None:
    # Python 3.12 reads it as a comment; the scanner keeps it, erring towards a finding.
    source = "x = f'''{a\n# torch.matmul\n}''' # c\n"
    assert python_comments_blanked(source) == "x = f'''{a\n# torch.matmul\n}'''    \n"


@pytest.mark.parametrize(
    ("source", "code"),
    [
        ('a = "//"; b(); // c\n', 'a = "//"; b();     \n'),
        ('a = "/*"; cublas(); /* c */\n', 'a = "/*"; cublas();        \n'),
        ("c = '\"'; cublas(); // c\n", "c = '\"'; cublas();     \n"),
        ("// spliced \\\ncublas();\nx();\n", "            \n         \nx();\n"),
        ('s = R"x( /* )x" cublas(); // */\n', 's = R"x( /* )x" cublas();      \n'),
        ('s = "a\\"/*"; cublas();\n', 's = "a\\"/*"; cublas();\n'),
        ("/* open\nnever closed cublas", "       \n                   "),
        ("x = 1'000'000; cublas(); // c\n", "x = 1'000'000; cublas();     \n"),
    ],
)
def test_cuda_comments_are_blanked_and_literals_kept(source: str, code: str) -> None:
    assert c_comments_blanked(source) == code


def blanked_only_comments(source: str, code: str) -> bool:
    """Same length, same newlines, every change a space: nothing moved, nothing invented."""
    return len(code) == len(source) and all(
        a == b or (b == " " and a != "\n") for a, b in zip(source, code, strict=True)
    )


def checks(source: str) -> float:
    """The CPU time this thread spends on every check of `source` (its work: what other processes
    on a loaded host take from it is not the checks' cost)."""
    began = time.thread_time()
    for language in ("triton", "cuda"):
        code = strip_comments(source, language)
        assert blanked_only_comments(source, code)
        find_forbidden(source, language, ["torch.matmul", "cublas", "torch.", "import"])
    cuda_solve_parameters(source)
    return time.thread_time() - began


@pytest.mark.parametrize("name", sorted(crafted()))
def test_each_crafted_64_kib_source_is_checked_within_the_bound(name: str) -> None:
    source = crafted()[name]
    assert len(source) == LIMIT
    assert checks(source) < BOUND_S, name


@pytest.mark.parametrize("seed", range(40))
def test_random_mixes_of_hostile_fragments_are_checked_within_the_bound(seed: int) -> None:
    assert checks(mixed(seed)) < BOUND_S


def test_time_grows_linearly_not_quadratically() -> None:
    # Doubling the worst case of the old regex twice must not take 16 times as long.
    small, large = crafted(LIMIT // 4)["open block comments"], crafted()["open block comments"]
    t_small = min(checks(small) for _ in range(3))
    t_large = min(checks(large) for _ in range(3))
    assert t_large < max(8 * t_small, 0.05)


def test_a_source_over_the_limit_is_refused_with_the_limit_named() -> None:
    with pytest.raises(SourceTooLarge, match="at most 64 KiB"):
        find_forbidden("x" * (LIMIT + 1), "triton", ["torch.matmul"])
