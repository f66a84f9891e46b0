"""Markdown to sanitized HTML. Statements, notes and anything user-written go through here."""

from __future__ import annotations

import html as html_lib
import re

import markdown as md
import nh3

# TeX between $$...$$ (display) or $...$ (inline, not starting or ending with a space, so prices
# like "$5 and $6" stay text). Markdown would read its backslashes and underscores as its own
# escapes and emphasis (\_ became _ and KaTeX then failed), so math is set aside first.
_MATH = re.compile(r"\$\$(.+?)\$\$|(?<![\\$])\$(?=\S)([^$\n]+?)(?<=\S)\$", re.S)

_ALLOWED_TAGS = {
    "p",
    "br",
    "hr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "ul",
    "ol",
    "li",
    "strong",
    "em",
    "b",
    "i",
    "code",
    "pre",
    "blockquote",
    "a",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "sup",
    "sub",
    "span",
    "div",
}
_ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "span": {"class"},
    "div": {"class"},
    "code": {"class"},
    "th": {"align"},
    "td": {"align"},
}


def render_markdown(text: str) -> str:
    """Render Markdown (tables, fenced code) and strip anything that could run script.

    Math stays as TeX between $...$ / $$...$$ and is typeset in the browser; without JavaScript the
    reader sees the TeX source, which is still readable.
    """
    kept: list[str] = []

    def keep(match: re.Match[str]) -> str:
        kept.append(match.group(0))
        return f"GSMATH{len(kept) - 1}X"

    html = md.markdown(_MATH.sub(keep, text), extensions=["tables", "fenced_code", "sane_lists"], output_format="html")
    html = re.sub(r"GSMATH(\d+)X", lambda m: html_lib.escape(kept[int(m.group(1))], quote=False), html)
    return nh3.clean(html, tags=_ALLOWED_TAGS, attributes=_ALLOWED_ATTRIBUTES, url_schemes={"http", "https", "mailto"})
