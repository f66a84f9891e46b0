"""The site's clock for deadlines: one function, so tests of whole views can freeze it
(monkeypatch `gridstride.lib.clock.now`); pure code takes `now` as an argument instead."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone


def now() -> datetime:
    return timezone.now()
