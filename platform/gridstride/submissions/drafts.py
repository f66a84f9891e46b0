"""Drafts kept on the server: the practice editor's text per user, problem and language, so that
it follows the user to another machine.

The problem page (static/gridstride/problem.js) keeps every edit in localStorage at once, which
works offline, and sends it here debounced (seconds after typing stops, at least every few
seconds while it goes on). The page carries the user's saved drafts of its problem; when the
editor opens, the newer of the two copies wins. Only the practice page sends drafts: contest and
assessment workspaces have records of their own (an assessment keeps snapshots for its
reviewers), and their problems may be hidden, which this endpoint never serves.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import F
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.request import RawPostDataException
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.views.decorators.http import require_POST

from gridstride.catalog.models import Problem
from gridstride.lib import clock
from gridstride.submissions.models import Draft, DraftQuota
from judge.protocol import storable_text

# The page saves at most every few seconds per open editor; this leaves room for a few tabs and
# keeps a script from rewriting 64 KiB rows as fast as it can.
SAVES_PER_MINUTE = 60
WINDOW = timedelta(minutes=1)


def editor_languages(problem: Problem) -> list[str]:
    """The languages the problem page offers (those with a starter), as catalog.views shows them."""
    starters = problem.current_version.starters if problem.current_version else {}
    return [lang for lang in problem.languages if lang in starters] or list(starters)


def page_data(user: Any, problem: Problem, languages: list[str]) -> dict[str, Any]:
    """What problem.js needs: where to save each language's draft, the drafts saved so far (with
    their times) and the server's time now (so the page can compare them with its own clock)."""
    saved = Draft.objects.filter(owner=user, problem=problem, language__in=languages).only(
        "language", "source", "updated_at"
    )
    return {
        "urls": {lang: reverse("submissions:draft", args=[problem.slug, lang]) for lang in languages},
        "saved": {d.language: {"source": d.source, "at": d.updated_at.isoformat()} for d in saved},
        "now": clock.now().isoformat(),
    }


def wait_for_save(user: Any, now: datetime) -> float:
    """Count one save against the user's minute; 0 when it may go ahead, else the seconds to wait."""
    counted = DraftQuota.objects.filter(owner=user, window_start__gt=now - WINDOW, saves__lt=SAVES_PER_MINUTE).update(
        saves=F("saves") + 1
    )
    if counted:
        return 0.0
    quota = DraftQuota.objects.filter(owner=user).first()
    if quota is not None and quota.window_start > now - WINDOW:
        return max(1.0, (quota.window_start + WINDOW - now).total_seconds())
    DraftQuota.objects.update_or_create(owner=user, defaults={"window_start": now, "saves": 1})
    return 0.0


def save_draft(user: Any, problem: Problem, language: str, source: str, now: datetime) -> Draft:
    """Keep `source` (made storable: a NUL shows as ␀) as the user's draft; an unchanged text keeps
    its time, so it does not look newer than an edit made elsewhere since."""
    source = storable_text(source)
    draft = Draft.objects.filter(owner=user, problem=problem, language=language).first()
    if draft is not None and draft.source == source:
        return draft
    draft, _ = Draft.objects.update_or_create(
        owner=user, problem=problem, language=language, defaults={"source": source, "updated_at": now}
    )
    return draft


def _error(message: str, status: int) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


@require_POST
def draft(request: HttpRequest, slug: str, language: str) -> HttpResponse:
    """POST the editor's text (text/plain, UTF-8, the body as is) to keep it as the draft."""
    if not request.user.is_authenticated:
        return _error("Log in to keep drafts on the site.", 401)
    problem = get_object_or_404(Problem.objects.public().select_related("current_version"), slug=slug)
    if language not in editor_languages(problem):
        return _error(f"{problem.title} takes no {language!r} code.", 404)
    if request.content_type != "text/plain":
        return _error("Send the draft as text/plain.", 415)
    try:
        body = request.body
    except RawPostDataException:
        return _error("Send the draft as text/plain.", 415)
    if len(body) > settings.MAX_SOURCE_BYTES:
        return _error(
            f"The draft is {len(body) / 1024:.1f} KiB; the limit is {settings.MAX_SOURCE_BYTES // 1024} KiB "
            "(as for a submission). It is kept in this browser only.",
            413,
        )
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return _error("The draft is not UTF-8 text.", 400)
    now = clock.now()
    wait_s = wait_for_save(request.user, now)
    if wait_s:
        response = _error(f"Too many draft saves in a minute; the next is taken in {wait_s:.0f} s.", 429)
        response["Retry-After"] = str(int(wait_s + 0.999))
        return response
    saved = save_draft(request.user, problem, language, text, now)
    response = JsonResponse({"saved": True, "at": saved.updated_at.isoformat(), "now": now.isoformat()})
    response["Cache-Control"] = "no-store"
    return response
