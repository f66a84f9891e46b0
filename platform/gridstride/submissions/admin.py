"""Admin: find a submission, see its pipeline events, rejudge a selection."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from gridstride.submissions import actions
from gridstride.submissions.models import Submission, SubmissionEvent


class EventInline(admin.TabularInline):
    model = SubmissionEvent
    extra = 0
    can_delete = False
    readonly_fields = ("at", "kind", "attempt", "detail")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = (
        "public_id",
        "owner",
        "problem",
        "language",
        "mode",
        "context",
        "gpu_model",
        "status",
        "verdict",
        "attempt",
        "created_at",
    )
    list_filter = ("status", "verdict", "mode", "context", "gpu_model", "language")
    search_fields = ("public_id", "owner__username", "problem__slug", "context_key")
    readonly_fields = [f.name for f in Submission._meta.fields]
    inlines = [EventInline]
    actions = ["rejudge_selected"]

    @admin.action(description="Rejudge the selected submissions")
    def rejudge_selected(self, request: HttpRequest, queryset: QuerySet[Submission]) -> None:
        count = sum(actions.rejudge(s) for s in queryset)
        self.message_user(request, f"{count} submissions queued for rejudging.", messages.SUCCESS)
