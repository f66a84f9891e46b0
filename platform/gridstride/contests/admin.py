"""Admin: read contests, their participants and final re-runs. Changes go through the site's
pages (contests/actions.py), so the admin here only looks."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from gridstride.contests.models import Contest, FinalRun, Participant


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Contest)
class ContestAdmin(ReadOnly):
    list_display = ("slug", "title", "starts_at", "ends_at", "scoring", "final_state")
    search_fields = ("slug", "title")


@admin.register(Participant)
class ParticipantAdmin(ReadOnly):
    list_display = ("name", "contest", "captain", "is_virtual", "created_at")
    list_filter = ("is_virtual",)
    search_fields = ("name", "contest__slug")
    exclude = ("participant_seed",)  # the judging secret stays off every page


@admin.register(FinalRun)
class FinalRunAdmin(ReadOnly):
    list_display = ("contest", "participant", "problem", "gpu_model", "state", "judged_at", "decided_at")
    list_filter = ("state",)
    search_fields = ("contest__slug", "participant__name")
