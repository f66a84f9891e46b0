"""State changes of API tokens: issue, revoke, and authenticate (which records the last use)."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.contrib.auth.models import User
from django.utils import timezone

from gridstride.api.models import Token

TOKEN_PREFIX = "gs_"
MAX_ACTIVE_TOKENS = 20
# last_used_at is written at most this often per token, so API reads stay reads.
LAST_USED_RESOLUTION = timedelta(minutes=1)


class TokenRefused(ValueError):
    pass


def _digest(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def issue_token(user: User, name: str) -> tuple[Token, str]:
    """Create a token; returns the row and the raw token, which is never stored or shown again."""
    name = name.strip()[:64] or "token"
    if Token.objects.filter(user=user, revoked_at__isnull=True).count() >= MAX_ACTIVE_TOKENS:
        raise TokenRefused(f"You already have {MAX_ACTIVE_TOKENS} active tokens; revoke one first.")
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = Token.objects.create(user=user, name=name, key_hash=_digest(raw), prefix=raw[:10])
    return token, raw


def revoke_token(user: User, token_id: int) -> bool:
    """Revoke one of the user's own tokens. False when it is not theirs or already revoked."""
    updated = Token.objects.filter(pk=token_id, user=user, revoked_at__isnull=True).update(revoked_at=timezone.now())
    return updated == 1


def authenticate_token(raw: str) -> Token | None:
    """The active token with this value (user loaded), or None."""
    if not raw.startswith(TOKEN_PREFIX) or len(raw) > 100:
        return None
    token = (
        Token.objects.select_related("user")
        .filter(key_hash=_digest(raw), revoked_at__isnull=True, user__is_active=True)
        .first()
    )
    if token is None:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        Token.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token
