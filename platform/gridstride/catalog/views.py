from __future__ import annotations

from itertools import groupby

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from gridstride.catalog.models import Problem
from gridstride.lib.markdown import render_markdown
from judge.spec import DIFFICULTIES, TRACK_TITLES, TRACKS


def problem_list(request: HttpRequest) -> HttpResponse:
    problems = Problem.objects.filter(is_active=True).order_by("order", "slug")
    by_track: dict[str, list[Problem]] = {track: [] for track in TRACKS}
    for p in problems:
        by_track.setdefault(p.track, []).append(p)
    tracks = []
    for track in TRACKS:
        ordered = sorted(by_track[track], key=lambda p: (DIFFICULTIES.index(p.difficulty), p.order, p.slug))
        groups = [(d, list(ps)) for d, ps in groupby(ordered, key=lambda p: p.difficulty)]
        tracks.append({"slug": track, "title": TRACK_TITLES[track], "groups": groups, "count": len(ordered)})
    return render(request, "catalog/problem_list.html", {"tracks": tracks})


def problem_detail(request: HttpRequest, slug: str) -> HttpResponse:
    problem = get_object_or_404(Problem.objects.select_related("current_version"), slug=slug, is_active=True)
    version = problem.current_version
    spec = version.spec if version else {}
    context = {
        "problem": problem,
        "version": version,
        "spec": spec,
        "statement_html": render_markdown(version.statement) if version else "",
        "starters": version.starters if version else {},
    }
    return render(request, "catalog/problem_detail.html", context)
