"""API tokens: only a hash is stored; the token itself is shown once, when it is created."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Token(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=64)
    # sha256 of the whole token, hex. A leaked database row does not give a usable token.
    key_hash = models.CharField(max_length=64, unique=True)
    # The first characters of the token, so its owner can tell tokens apart in the list.
    prefix = models.CharField(max_length=12)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.user_id}:{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
