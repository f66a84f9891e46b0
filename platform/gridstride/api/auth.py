"""Bearer-token authentication for the API (tokens from the account's Tokens page)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja.security import HttpBearer

from gridstride.api.actions import authenticate_token


class TokenAuth(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str) -> Any:
        found = authenticate_token(token)
        if found is None:
            return None
        request.user = found.user
        return found.user


def optional_user(request: HttpRequest) -> Any:
    """The token's user when a valid token came with the request, else None (no error)."""
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value:
        return None
    found = authenticate_token(value.strip())
    return found.user if found else None
