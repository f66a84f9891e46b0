"""Markdown to sanitized HTML. Statements, notes and anything user-written go through here."""

from __future__ import annotations

import markdown as md
import nh3

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
    html = md.markdown(text, extensions=["tables", "fenced_code", "sane_lists"], output_format="html")
    return nh3.clean(html, tags=_ALLOWED_TAGS, attributes=_ALLOWED_ATTRIBUTES, url_schemes={"http", "https", "mailto"})
