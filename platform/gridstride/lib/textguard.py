"""Refuse requests whose text PostgreSQL cannot store or that do not decode, before any view.

One place for every form and API field: a NUL in a query or form field, a JSON body that is not
UTF-8 or not JSON, and a JSON string holding a NUL or a lone surrogate ("\\ud800") are answered
with 400 and a message naming the field and where in it, instead of reaching the database as a
500 (docs/security.md, "Text"). Text that programs and judges write is not refused but stored
visibly replaced (judge.protocol.storable).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.utils.html import escape

from judge.protocol import source_text_fault

JSON_TYPES = ("application/json",)


def _fields(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(field path, string) for every key and string of a parsed JSON value, without recursion
    (a body nested a thousand deep must not exhaust the stack here)."""
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            yield where or "body", item
        elif isinstance(item, dict):
            for key, child in item.items():
                name = f"{where}.{key}" if where else str(key)
                yield f"a key in {where or 'the body'}", str(key)
                stack.append((name, child))
        elif isinstance(item, list):
            stack.extend((f"{where}[{i}]", child) for i, child in enumerate(item))


def _field_fault(name: str, text: str) -> str | None:
    return source_text_fault(text, what=f"The field {name!r}", rule="fields must be plain text")


def json_body_fault(body: bytes) -> str | None:
    """Why a JSON request body cannot be taken, or None."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"The request body is not valid UTF-8 (byte 0x{body[exc.start]:02x} at offset {exc.start})."
    try:
        data = json.loads(text)
    except RecursionError:
        return "The request body is not valid JSON: it is nested too deeply."
    except ValueError as exc:
        return f"The request body is not valid JSON: {exc}."
    for name, value in _fields(data):
        fault = _field_fault(name, value)
        if fault:
            return fault
    return None


def form_fault(request: HttpRequest) -> str | None:
    """Why a query string or form body cannot be taken (a NUL in a field), or None."""
    for params in (request.GET, request.POST):
        for key, values in params.lists():
            for text in (key, *values):
                fault = _field_fault(key, text)
                if fault:
                    return fault
    return None


def _refuse(request: HttpRequest, message: str) -> HttpResponse:
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": message}, status=400)
    if "application/json" in request.headers.get("Accept", ""):
        return JsonResponse({"error": message}, status=400)
    return HttpResponseBadRequest(f"<!doctype html><title>Bad request</title><p>{escape(message)}</p>")


class TextGuardMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        content_type = request.content_type or ""
        if request.method in ("POST", "PUT", "PATCH") and content_type in JSON_TYPES and request.body:
            fault = json_body_fault(request.body)
        else:
            fault = form_fault(request)
        if fault:
            return _refuse(request, fault)
        return self.get_response(request)
