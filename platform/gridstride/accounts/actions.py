"""State changes of accounts."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User


def create_account(*, username: str, email: str, password: str) -> User:
    """A new, active user with a hashed password (the form has validated all three)."""
    user: User = get_user_model().objects.create_user(username=username, email=email, password=password)
    return user
