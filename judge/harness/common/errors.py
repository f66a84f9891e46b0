"""Turning a submission's exception into a message that shows only the submission's own frames
(stdlib only). Paths of the job directory are replaced by the file name the user knows."""

from __future__ import annotations

import re
import traceback

MAX_MESSAGE_BYTES = 16 * 1024


def trim(text: str, limit: int = MAX_MESSAGE_BYTES) -> str:
    data = text.encode("utf-8", errors="replace")
    if len(data) <= limit:
        return text
    head = data[: limit - 200].decode("utf-8", errors="ignore")
    return f"{head}\n... [trimmed: {len(data) - len(head.encode())} more bytes]"


def exception_text(exc: BaseException) -> str:
    """str(exc), or a stand-in when the submission's exception cannot say what it is (its
    __str__ raises): the judge's own handling of the error must not fail on it."""
    try:
        return str(exc)
    except Exception:
        return f"<{type(exc).__name__}: its __str__ raised>"


def scrub_paths(text: str, replacements: dict[str, str]) -> str:
    """Replace host paths (longest first) so no directory of the judge host leaks into a report."""
    for path in sorted(replacements, key=len, reverse=True):
        if path:
            text = text.replace(path, replacements[path])
    return text


def user_traceback(exc: BaseException, source_path: str, shown_as: str) -> str:
    """The traceback restricted to frames in the submission's file, then the exception line."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == source_path]
    lines = []
    if frames:
        lines.append("Traceback (your code, most recent call last):")
        for frame in frames:
            lines.append(f'  File "{shown_as}", line {frame.lineno}, in {frame.name}')
            if frame.line:
                lines.append(f"    {frame.line.strip()}")
    else:
        last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
        where = f" (raised in library code: {re.sub(r'.*/', '', last[0].filename)})" if last else ""
        lines.append(f"Raised outside your code{where}:")
    detail = "".join(traceback.format_exception_only(type(exc), exc)).rstrip()
    lines.append(detail)
    directory = source_path.rsplit("/", 1)[0] + "/"
    return trim(scrub_paths("\n".join(lines), {source_path: shown_as, directory: ""}))


def syntax_error_message(exc: SyntaxError, shown_as: str) -> str:
    where = f"{shown_as}:{exc.lineno}" + (f":{exc.offset}" if exc.offset else "")
    text = f"{where}: {type(exc).__name__}: {exc.msg}"
    if exc.text:
        text += "\n    " + exc.text.rstrip("\n").strip()
        if exc.offset:
            indent = len(exc.text.rstrip("\n")) - len(exc.text.rstrip("\n").lstrip())
            text += "\n    " + " " * max(exc.offset - 1 - indent, 0) + "^"
    return trim(text)
