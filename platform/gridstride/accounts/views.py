from __future__ import annotations

from typing import cast

from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from gridstride.accounts import queries
from gridstride.accounts.actions import create_account
from gridstride.accounts.forms import SignupForm, TokenForm
from gridstride.api.actions import TokenRefused, issue_token, revoke_token
from gridstride.api.models import Token
from gridstride.catalog.models import Problem
from gridstride.catalog.ordering import in_learning_order
from judge.spec import TRACK_TITLES, TRACKS


def _next_url(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
        return target
    return "/"


def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect(_next_url(request))
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = create_account(
            username=form.cleaned_data["username"],
            email=form.cleaned_data["email"],
            password=form.cleaned_data["password1"],
        )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.get_username()}. Pick a problem to start.")
        return redirect(_next_url(request))
    return render(request, "registration/signup.html", {"form": form, "next": _next_url(request)})


def profile(request: HttpRequest, username: str) -> HttpResponse:
    user = get_object_or_404(get_user_model(), username=username, is_active=True)
    is_self = request.user.is_authenticated and request.user.pk == user.pk
    best = queries.best_results(user)
    stats = queries.problem_stats(user)
    solved_ids = [pid for pid, s in stats.items() if s["solved"]]
    solved = in_learning_order(
        Problem.objects.filter(pk__in=solved_ids).only("slug", "title", "track", "difficulty", "order")
    )
    # Solved against available, track by track along the learning path.
    totals = {t: 0 for t in TRACKS}
    for track in Problem.objects.public().values_list("track", flat=True):
        totals[track] = totals.get(track, 0) + 1
    done = {t: 0 for t in TRACKS}
    for p in solved:
        done[p.track] = done.get(p.track, 0) + 1
    per_track = [
        {"title": TRACK_TITLES.get(t, t), "solved": done.get(t, 0), "total": n} for t, n in totals.items() if n
    ]
    context = {
        "per_track": per_track,
        "profile_user": user,
        "is_self": is_self,
        "best": best,
        "solved": solved,
        "attempted_count": len(stats),
        "submission_count": sum(s["attempts"] for s in stats.values()),
        # Others see only the submissions the owner made public.
        "recent": queries.recent_submissions(user, public_only=not is_self),
    }
    return render(request, "accounts/profile.html", context)


# The session key that carries a just-created token across the redirect, read (and dropped) once.
_NEW_TOKEN = "new_api_token"


@login_required
def tokens(request: HttpRequest) -> HttpResponse:
    """Post, redirect, get: creating a token redirects here, which shows it once; a reload (or the
    back button) neither re-creates it nor shows it again."""
    form = TokenForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            _, raw = issue_token(cast(User, request.user), form.cleaned_data["name"])
        except TokenRefused as exc:
            form.add_error(None, str(exc))
        else:
            request.session[_NEW_TOKEN] = raw
            return redirect("accounts:tokens")
    new_token = request.session.pop(_NEW_TOKEN, None) if request.method == "GET" else None
    listing = Token.objects.filter(user=cast(User, request.user)).order_by("revoked_at", "-created_at")
    response = render(
        request,
        "accounts/tokens.html",
        {
            "form": form,
            "new_token": new_token,
            "tokens": listing,
            "server": request.build_absolute_uri("/").rstrip("/"),
        },
    )
    # The page may show a token once: never cache it.
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    if revoke_token(cast(User, request.user), token_id):
        messages.success(request, "Token revoked. Programs using it can no longer sign in.")
    else:
        messages.error(request, "No such active token.")
    return redirect("accounts:tokens")
