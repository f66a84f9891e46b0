from __future__ import annotations

import re
import uuid
from itertools import groupby
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import F, Max
from django.db.models.fields.json import KeyTextTransform
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from gridstride.accounts.queries import problem_stats
from gridstride.catalog.actions import give_up_ladder
from gridstride.catalog.ladder_access import ladder_of, opened_by
from gridstride.catalog.ladder_lock import closed_reason
from gridstride.catalog.models import Ladder, Problem, ProblemVersion
from gridstride.leaderboards.models import ALL_LANGUAGES, BestRun
from gridstride.lib.markdown import render_markdown
from gridstride.pages import ladders as ladder_pages
from gridstride.pages.hardware import REFERENCE_GPU
from gridstride.submissions import drafts, pools
from gridstride.submissions.models import Language, Submission
from judge.spec import DIFFICULTIES, TRACK_TITLES, TRACKS, evaluate

LANGUAGE_NAMES = dict(Language.choices)


def gpu_choices() -> list[str]:
    """GPU models a candidate may pick: the default queue first, then any others configured."""
    return pools.single_gpu_models()


def best_sol_by_problem() -> dict[int, float]:
    """Best % of speed of light per problem among ranked entries of its current ranking (one query)."""
    rows = (
        BestRun.objects.filter(
            ranked=True,
            language=ALL_LANGUAGES,
            problem__is_active=True,
            problem__is_hidden=False,
            ranking_hash=F("problem__current_version__ranking_hash"),
        )
        .order_by()
        .values("problem_id")
        .annotate(best=Max("sol_pct"))
    )
    return {r["problem_id"]: r["best"] for r in rows}


STATUS_FILTERS = {"solved": "solved", "unsolved": "not solved yet"}


def list_filters(request: HttpRequest, problems: list[Problem]) -> dict[str, str]:
    """The list's filters from the query string, each kept only when it names something real."""
    tags = {t for p in problems for t in p.tags}
    wanted = {
        "q": request.GET.get("q", "").strip()[:80],
        "track": request.GET.get("track", ""),
        "difficulty": request.GET.get("difficulty", ""),
        "tag": request.GET.get("tag", ""),
        "status": request.GET.get("status", "") if request.user.is_authenticated else "",
    }
    valid = {"track": set(TRACKS), "difficulty": set(DIFFICULTIES), "tag": tags, "status": set(STATUS_FILTERS)}
    return {k: v for k, v in wanted.items() if v and (k == "q" or v in valid[k])}


def matches(p: Problem, f: dict[str, str]) -> bool:
    if "q" in f:
        text = " ".join([p.title, p.slug, *p.tags]).lower()
        if not all(word in text for word in f["q"].lower().split()):
            return False
    if f.get("track", p.track) != p.track or f.get("difficulty", p.difficulty) != p.difficulty:
        return False
    if "tag" in f and f["tag"] not in p.tags:
        return False
    solved = getattr(p, "mark", "") == "solved"
    return not ((f.get("status") == "solved" and not solved) or (f.get("status") == "unsolved" and solved))


def problem_list(request: HttpRequest) -> HttpResponse:
    problems: list[Problem] = list(
        Problem.objects.public()
        .only("slug", "title", "track", "difficulty", "order", "tags", "languages")
        .annotate(gpus_needed=KeyTextTransform("gpus", "current_version__spec"))
        .order_by("order", "slug")
    )
    best = best_sol_by_problem()
    stats = problem_stats(request.user) if request.user.is_authenticated else {}
    filters = list_filters(request, problems)
    by_track: dict[str, list[Problem]] = {track: [] for track in TRACKS}
    for p in problems:
        p.best_sol = best.get(p.pk)  # type: ignore[attr-defined]
        s = stats.get(p.pk)
        p.mark = "solved" if s and s["solved"] else "attempted" if s else ""  # type: ignore[attr-defined]
        # Needs more GPUs than any judge here holds: listed, marked, never offered (pools.py).
        p.unavailable = pools.unavailable_message(int(getattr(p, "gpus_needed", None) or 1))  # type: ignore[attr-defined]
        if matches(p, filters):
            by_track.setdefault(p.track, []).append(p)
    tracks = []
    for track in TRACKS:
        if "track" in filters and track != filters["track"]:
            continue
        ordered = sorted(by_track[track], key=lambda p: (DIFFICULTIES.index(p.difficulty), p.order, p.slug))
        groups = [(d, list(ps)) for d, ps in groupby(ordered, key=lambda p: p.difficulty)]
        tracks.append(
            {
                "slug": track,
                "title": TRACK_TITLES[track],
                "number": TRACKS.index(track) + 1,
                "groups": groups,
                "count": len(ordered),
                "solved": sum(1 for p in ordered if getattr(p, "mark", "") == "solved"),
            }
        )
    shown = sum(len(by_track[t]) for t in TRACKS if "track" not in filters or t == filters["track"])
    context = {
        "tracks": tracks,
        "problem_count": len(problems),
        "shown_count": shown,
        "filters": filters,
        "filter_choices": {
            "track": [(t, TRACK_TITLES[t]) for t in TRACKS],
            "difficulty": list(DIFFICULTIES),
            "tag": sorted({t for p in problems for t in p.tags}),
            "status": list(STATUS_FILTERS.items()),
        },
    }
    return render(request, "catalog/problem_list.html", context)


def _benchmark_rows(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The ranked shapes with their bytes and FLOPs and the reference GPU's speed-of-light time."""
    cost = spec.get("cost") or {}
    roof = cost.get("compute_roof", "fp32")
    rows = []
    for case in spec.get("benchmarks", []):
        try:
            flops = evaluate(cost.get("flops", "0"), case["sizes"])
            nbytes = evaluate(cost.get("bytes", "0"), case["sizes"])
        except (ValueError, KeyError, ZeroDivisionError):
            flops = nbytes = 0.0
        rows.append(
            {
                "name": case["name"],
                "sizes": case["sizes"],
                "flops": flops,
                "bytes": nbytes,
                "intensity": flops / nbytes if nbytes else None,
                "floor_us": REFERENCE_GPU.floor_us(flops, nbytes, roof),
                "bound": REFERENCE_GPU.bound(flops, nbytes, roof),
            }
        )
    return rows


# Rendered statements, keyed by the text itself: Markdown + sanitizing cost ~5 ms a page view and
# a statement rarely changes (hashing it costs microseconds).
_STATEMENTS: dict[tuple[int, int], dict[str, str]] = {}


# Statement sections the page shows once, beside the tables generated from problem.toml.
MERGED_SECTIONS = ("Interface", "Benchmarks")
_HEADING = re.compile(r"^## +(.+?)\s*$", re.M)


def split_statement(text: str) -> dict[str, str]:
    """The statement's Markdown cut at its level-2 headings: "intro" (the part before the first), one
    entry per merged section (its prose, without the heading), and "rest" (every other section,
    headings kept, in their order)."""
    parts = {"intro": "", "rest": "", **{name: "" for name in MERGED_SECTIONS}}
    matches = list(_HEADING.finditer(text))
    parts["intro"] = text[: matches[0].start()] if matches else text
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        title = m.group(1).strip()
        if title in MERGED_SECTIONS:
            parts[title] += text[m.end() : end]
        else:
            parts["rest"] += text[m.start() : end]
    return parts


def statement_html(version: ProblemVersion) -> dict[str, str]:
    """The statement's sections as sanitized HTML (keys as split_statement's)."""
    key = (version.pk, hash(version.statement))
    html = _STATEMENTS.get(key)
    if html is None:
        if len(_STATEMENTS) > 256:
            _STATEMENTS.clear()
        html = _STATEMENTS[key] = {
            name: render_markdown(part) if part.strip() else ""
            for name, part in split_statement(version.statement).items()
        }
    return html


def _opened_submission(request: HttpRequest, problem: Problem, languages: list[str]) -> dict[str, str] | None:
    """?from=<id>: one of the viewer's own submissions to this problem, to load into the editor."""
    wanted = request.GET.get("from", "")
    if not wanted or not request.user.is_authenticated:
        return None
    try:
        public_id = uuid.UUID(wanted)
    except ValueError:
        return None
    found = (
        Submission.objects.filter(public_id=public_id, owner=request.user, problem=problem)
        .only("language", "source", "created_at")
        .first()
    )
    if found is None or found.language not in languages:
        return None
    return {"language": found.language, "source": found.source, "label": found.created_at.strftime("%Y-%m-%d %H:%M")}


def problem_detail(request: HttpRequest, slug: str) -> HttpResponse:
    problem = get_object_or_404(Problem.objects.public().select_related("current_version", "ladder"), slug=slug)
    version = problem.current_version
    spec = version.spec if version else {}
    starters = version.starters if version else {}
    languages = [lang for lang in problem.languages if lang in starters] or list(starters)
    recent: list[Submission] = []
    if request.user.is_authenticated:
        recent = list(
            Submission.objects.filter(owner=request.user, problem=problem)
            .only(
                "public_id", "language", "mode", "status", "verdict", "score_us", "sol_pct", "created_at", "gpu_model"
            )
            .order_by("-created_at")[:8]
        )
    # Everything the editor needs, as one JSON blob read by problem.js (json_script escapes it).
    workspace = {
        "slug": problem.slug,
        "languages": [{"id": lang, "name": LANGUAGE_NAMES.get(lang, lang)} for lang in languages],
        "starters": starters,
        "submitUrl": reverse("submissions:create"),
        "loginUrl": f"{reverse('accounts:login')}?next={request.path}",
        "authenticated": request.user.is_authenticated,
        "gpus": pools.models_for(pools.gpus_needed(spec)),
        "load": _opened_submission(request, problem, languages),
    }
    if request.user.is_authenticated:
        # Drafts saved on the site, so that they follow the user to another machine.
        workspace["drafts"] = drafts.page_data(request.user, problem, languages)
    context = {
        "problem": problem,
        "version": version,
        "spec": spec,
        "statement": statement_html(version) if version else {},
        "starters": starters,
        "languages": workspace["languages"],
        "gpus": workspace["gpus"],
        "benchmarks": _benchmark_rows(spec),
        "workspace": workspace,
        "recent": recent,
        "tolerance": spec.get("tolerance") or {},
        "reference_gpu": REFERENCE_GPU,
        "compute_roof": (spec.get("cost") or {}).get("compute_roof", "fp32"),
        # New submissions go to the judge.cpu queue: say what practice there can and cannot tell.
        "cpu_host": settings.JUDGE_DEFAULT_GPU == "cpu",
        # A problem needing several GPUs where no judge holds that many: said, and nothing to pick.
        "unavailable": pools.unavailable_message(pools.gpus_needed(spec)),
    }
    stored = ladder_of(problem)
    if stored is not None:
        # Nothing of the ladder is in the context until it is open to this viewer, and nothing while
        # a contest or the viewer's assessment uses the problem (catalog/ladder_lock.py).
        closed = closed_reason(problem, request.user)
        opened = None if closed else opened_by(problem, request.user)
        context["has_ladder"] = True
        context["ladder_closed"] = closed
        context["ladder"] = ladder_pages.build(problem, stored, request.user, opened) if opened else None
        workspace["ladderUrl"] = reverse("catalog:ladder", args=[problem.slug])
    return render(request, "catalog/problem_detail.html", context)


def _ladder_problem(slug: str) -> tuple[Problem, Ladder]:
    """A public problem with a ladder, or 404 (a hidden problem's ladder is never served here)."""
    problem = Problem.objects.public().select_related("current_version", "ladder").filter(slug=slug).first()
    stored = ladder_of(problem) if problem else None
    if problem is None or stored is None:
        raise Http404("No such problem, or it has no optimization ladder")
    return problem, stored


@require_GET
def ladder(request: HttpRequest, slug: str) -> HttpResponse:
    """The opened ladder alone, for the problem page to show once a run is accepted; 403 before."""
    problem, stored = _ladder_problem(slug)
    closed = closed_reason(problem, request.user)
    opened = None if closed else opened_by(problem, request.user)
    if not opened:
        return HttpResponse(
            closed
            or "The optimization ladder opens after an accepted submission on this problem, "
            "or once you choose to see it on the problem page.",
            status=403,
            content_type="text/plain; charset=utf-8",
        )
    view = ladder_pages.build(problem, stored, request.user, opened)
    response = render(request, "catalog/_ladder.html", {"ladder": view, "problem": problem})
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@require_POST
def ladder_give_up(request: HttpRequest, slug: str) -> HttpResponse:
    """Open the ladder before solving: only with the form's confirmation, recorded per user and problem."""
    problem, _ = _ladder_problem(slug)
    target = reverse("catalog:problem_detail", args=[problem.slug])
    closed = closed_reason(problem, request.user)
    if closed:
        # Refused, and nothing recorded: the choice is made once the ladder could be shown.
        messages.error(request, closed)
        return redirect(target + "#ladder")
    if request.POST.get("confirm") != "yes":
        messages.error(request, "Tick the box to confirm that you want to see the ladder now.")
        return redirect(target + "#ladder")
    give_up_ladder(request.user, problem)
    return redirect(target + "#ladder")
