"""A small JSON client for the site's API (/api/...), with errors a person can act on."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any


class ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Client:
    def __init__(self, server: str, token: str | None = None, timeout: float = 30.0) -> None:
        self.server = server.rstrip("/")
        self.token = token
        self.timeout = timeout

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(f"{self.server}/api{path}", data=data, method=method)
        req.add_header("Accept", "application/json")
        req.add_header("User-Agent", "gridstride-cli")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if self.token:
            req.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            raise ApiError(exc.code, _detail(exc)) from None
        except urllib.error.URLError as exc:
            raise ApiError(0, f"cannot reach {self.server}: {exc.reason}") from None
        except TimeoutError:
            raise ApiError(0, f"{self.server} did not answer within {self.timeout:.0f} s") from None

    def get(self, path: str) -> Any:
        return self.request("GET", path)

    def post(self, path: str, body: dict[str, Any]) -> Any:
        return self.request("POST", path, body)


def _detail(exc: urllib.error.HTTPError) -> str:
    try:
        payload = json.loads(exc.read() or b"{}")
    except ValueError:
        payload = {}
    detail = payload.get("detail") if isinstance(payload, dict) else None
    if isinstance(detail, list):  # validation errors: [{"loc": [...], "msg": ...}]
        detail = "; ".join(f"{'.'.join(str(p) for p in d.get('loc', [])[1:])}: {d.get('msg')}" for d in detail)
    if exc.code == 401:
        return "the server refused the token (missing, wrong or revoked): run `gridstride login --token ...`"
    if exc.code >= 500:
        return f"the server failed (HTTP {exc.code}); try again, or tell the site's operators"
    if not detail and exc.code == 404:
        return "not found on this server (is --server the Gridstride site?)"
    return str(detail or f"HTTP {exc.code} {exc.reason}")
