"""Compiler logs and tracebacks as HTML whose line references jump to the line in the editor.

The text is escaped piece by piece; only the links this module builds are markup.
"""

from __future__ import annotations

import re

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

# nvcc: "kernel.cu(12): error ..."; gcc/clang: "kernel.cu:12:5: error ..."; Python: 'File "x.py", line 12'.
_LINE_REF = re.compile(
    r"""(?P<nvcc>[\w./-]*\.cuh?\((?P<nvcc_line>\d{1,6})\))"""
    r"""|(?P<gcc>[\w./-]*\.(?:cuh?|py|cpp|h):(?P<gcc_line>\d{1,6})(?::\d{1,6})?)"""
    r"""|(?P<py>File "(?P<py_file>[^"\n]{1,300})", line (?P<py_line>\d{1,6}))"""
)
# Tracebacks also walk through library and judge code; only the submission's own file links.
_FOREIGN = ("site-packages", "dist-packages", "/lib/python", "/judge/", "<frozen")


def _is_foreign(path: str) -> bool:
    return any(part in path for part in _FOREIGN)


def link_line_numbers(text: str) -> SafeString:
    """Escape `text`, turning references to lines of the submission into #L<n> links."""
    pieces: list[str] = []
    last = 0
    for match in _LINE_REF.finditer(text):
        line = match.group("nvcc_line") or match.group("gcc_line") or match.group("py_line")
        path = match.group("py_file") or match.group("nvcc") or match.group("gcc") or ""
        if _is_foreign(path):
            continue
        pieces.append(escape(text[last : match.start()]))
        pieces.append(format_html('<a class="line-link" href="#L{}" data-line="{}">{}</a>', line, line, match.group(0)))
        last = match.end()
    pieces.append(escape(text[last:]))
    return mark_safe("".join(pieces))  # every piece was escaped or built by format_html above
