from __future__ import annotations

import os
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

DEMO_USERNAME = "demo"


class Command(BaseCommand):
    help = "Create the demo account if it does not exist, and print how to log in."

    def handle(self, *args: Any, **options: Any) -> None:
        password = os.environ.get("GRIDSTRIDE_DEMO_PASSWORD", "gridstride-demo")
        user_model = get_user_model()
        user, created = user_model.objects.get_or_create(username=DEMO_USERNAME, defaults={"email": "demo@localhost"})
        if created:
            user.set_password(password)
            user.save()
        verb = "created" if created else "exists"
        self.stdout.write(f"demo account {verb}: username {DEMO_USERNAME!r}, password {password!r}")
