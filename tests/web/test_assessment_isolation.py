"""Organization isolation, over every route of the site.

ROUTES names every route of the URL conf (the API's paths and the Django admin included) with
what guards it. The walk fails on a route missing from the table, so a new route has to say how it
is checked, and on an entry that is no longer routed. Each route is then filled with the
organization's own objects wherever it takes an id (its slug, assessment, invitation, candidate,
the candidate's submission and username, a hidden problem of the assessment) and requested with
every HTTP method by people outside the organization: a member of another organization, that
organization's candidate, a candidate of a third one and an anonymous visitor, plus the
organization's own candidate on the team's routes and its owner on a candidate's routes. Routes
guarded by membership or by the seat answer 404 (never 403: what another organization owns is not
even confirmed to exist), routes over objects that can be an organization's answer as for an object
that does not exist, and no response of any route carries the organization's name, the
assessment's title or instructions, or the candidate's code.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from assessment_fixtures import T0, judged, make_assessment, make_org, seat
from contest_fixtures import make_contest
from django.contrib.auth.tokens import default_token_generator
from django.contrib.contenttypes.models import ContentType
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from gridstride.api.actions import issue_token
from gridstride.api.models import Token
from gridstride.assessments import actions
from gridstride.assessments.models import Assessment, Candidate, Invitation, Membership, Role
from gridstride.catalog.models import Problem
from gridstride.submissions.models import Submission
from site_fixtures import make_user, problems

pytestmark = pytest.mark.django_db

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")

# What guards a route.
TEAM = "team"  # access.membership(user, slug): members of the organization in the URL
OWNER = "owner"  # access.membership(user, slug, owner=True): its owners
SEAT = "seat"  # access.own_seat(user, id): the candidate holding that seat
API_TEAM = "api-team"  # the API's membership check (assessments/api.py), for a member's token
INVITE = "invite"  # the signed, single-use invitation link is the credential
OWN = "own"  # objects that can be an organization's, shown to their owner only (else 404)
NONE = "none"  # never reaches an organization's objects (the allow-list; the reason is beside it)
STAFF = "staff"  # the Django admin: staff only (it registers no assessments model)

ROUTES: dict[str, tuple[str, str]] = {
    # The hiring team's pages.
    "orgs/": (NONE, "lists the viewer's own memberships only (asserted below)"),
    "orgs/<slug:slug>/": (TEAM, ""),
    "orgs/<slug:slug>/members/": (OWNER, ""),
    "orgs/<slug:slug>/new/": (OWNER, ""),
    "orgs/<slug:slug>/a/<uuid:public_id>/": (TEAM, ""),
    "orgs/<slug:slug>/a/<uuid:public_id>/edit/": (OWNER, ""),
    "orgs/<slug:slug>/a/<uuid:public_id>/invite/": (OWNER, ""),
    "orgs/<slug:slug>/a/<uuid:public_id>/invitations/<int:invitation_id>/<str:action>/": (OWNER, ""),
    "orgs/<slug:slug>/a/<uuid:public_id>/export.csv": (TEAM, ""),
    "orgs/<slug:slug>/a/<uuid:public_id>/c/<int:candidate_id>/": (TEAM, ""),
    "orgs/<slug:slug>/a/<uuid:public_id>/c/<int:candidate_id>/extra/": (OWNER, ""),
    "orgs/<slug:slug>/a/<uuid:public_id>/c/<int:candidate_id>/s/<uuid:submission_id>/source": (TEAM, ""),
    # The candidate's pages.
    "a/invite/<str:token>/": (INVITE, ""),
    "a/<uuid:public_id>/": (SEAT, ""),
    "a/<uuid:public_id>/start/": (SEAT, ""),
    "a/<uuid:public_id>/finish/": (SEAT, ""),
    "a/<uuid:public_id>/clock/": (SEAT, ""),
    "a/<uuid:public_id>/p/<slug:slug>/": (SEAT, ""),
    "a/<uuid:public_id>/p/<slug:slug>/submit/": (SEAT, ""),
    "a/<uuid:public_id>/p/<slug:slug>/snapshot/": (SEAT, ""),
    "a/<uuid:public_id>/p/<slug:slug>/event/": (SEAT, ""),
    # Submissions: an assessment's are its candidate's, never public (submissions/views.can_view).
    "submissions/": (OWN, "the viewer's own submissions"),
    "submissions/new/": (OWN, "public problems only: a hidden one is a 404"),
    "submissions/compare/": (OWN, "two of the viewer's own submissions"),
    "submissions/<uuid:public_id>/": (OWN, ""),
    "submissions/<uuid:public_id>/status/": (OWN, ""),
    "submissions/<uuid:public_id>/report/": (OWN, ""),
    "submissions/<uuid:public_id>/visibility/": (OWN, ""),
    "submissions/drafts/<slug:slug>/<str:language>/": (OWN, "the viewer's drafts, public problems only"),
    # Public pages: hidden problems (an assessment's) are a 404 everywhere here.
    "": (NONE, "the public catalog (Problem.objects.public())"),
    "problems/<slug:slug>/": (OWN, "public problems only"),
    "problems/<slug:slug>/ladder/": (OWN, "public problems only, once the viewer opened the ladder"),
    "problems/<slug:slug>/ladder/give-up/": (OWN, "public problems only, the viewer's own choice"),
    "leaderboards/": (NONE, "public problems' boards; assessment runs never rank"),
    "leaderboards/<slug:slug>/": (OWN, "public problems only"),
    "users/<str:username>/": (NONE, "a public profile: practice only, no assessment run, no organization"),
    "about/": (NONE, "static text"),
    "healthz": (NONE, "liveness only"),
    # Accounts.
    "accounts/signup/": (NONE, "creates an account"),
    "accounts/login/": (NONE, "signs in"),
    "accounts/logout/": (NONE, "signs out"),
    "accounts/password/change/": (NONE, "the viewer's own password"),
    "accounts/password/change/done/": (NONE, "static text"),
    "accounts/password/reset/": (NONE, "sends mail to the address given, says the same either way"),
    "accounts/password/reset/sent/": (NONE, "static text"),
    "accounts/password/reset/<uidb64>/<token>/": (NONE, "a signed one-time link for one account"),
    "accounts/password/reset/done/": (NONE, "static text"),
    "accounts/tokens/": (NONE, "the viewer's own API tokens"),
    "accounts/tokens/<int:token_id>/revoke/": (OWN, "the viewer's own tokens only"),
    # Contests belong to no organization (contests/permissions.py); their hidden problems are
    # reached only through the contest.
    "contests/": (NONE, "contests, which no organization owns"),
    "contests/new/": (NONE, "creates a contest"),
    "contests/<slug:slug>/": (NONE, "a contest"),
    "contests/<slug:slug>/register/": (NONE, "a contest"),
    "contests/<slug:slug>/virtual/": (NONE, "a contest"),
    "contests/<slug:slug>/board/": (NONE, "a contest"),
    "contests/<slug:slug>/results/": (NONE, "a contest"),
    "contests/<slug:slug>/results.json": (NONE, "a contest"),
    "contests/<slug:slug>/results.csv": (NONE, "a contest"),
    "contests/<slug:slug>/review/": (NONE, "a contest's organizers"),
    "contests/<slug:slug>/review/<int:pk>/": (NONE, "a contest's organizers"),
    "contests/<slug:slug>/finalize/": (NONE, "a contest's organizers"),
    "contests/<slug:slug>/edit/": (NONE, "a contest's organizers"),
    "contests/<slug:slug>/mine/": (NONE, "a contest"),
    "contests/<slug:slug>/problems/<str:label>/": (NONE, "a contest"),
    "contests/<slug:slug>/problems/<str:label>/submit/": (NONE, "a contest"),
    # The JSON API (token auth).
    "api/": (NONE, "the API's home"),
    "api/openapi.json": (NONE, "the schema"),
    "api/docs": (NONE, "the schema's page"),
    "api/problems": (NONE, "public problems only"),
    "api/problems/<slug>": (OWN, "public problems only"),
    "api/problems/<slug>/ladder": (OWN, "public problems only, once the token holder opened the ladder"),
    "api/problems/<slug>/ladder/give-up": (OWN, "public problems only, the token holder's own choice"),
    "api/submissions": (OWN, "the token holder's own submissions; submitting takes public problems only"),
    "api/submissions/<submission_id>": (OWN, ""),
    "api/leaderboards/<slug>": (OWN, "public problems only"),
    "api/me": (NONE, "the token holder's account"),
    "api/contests": (NONE, "contests"),
    "api/contests/<slug>/board": (NONE, "a contest"),
    "api/contests/<slug>/results": (NONE, "a contest"),
    "api/contests/<slug>/submissions": (NONE, "a contest"),
    "api/orgs/<slug>/assessments": (API_TEAM, ""),
    "api/orgs/<slug>/assessments/<assessment_id>": (API_TEAM, ""),
    "api/orgs/<slug>/assessments/<assessment_id>/candidates/<candidate_id>": (API_TEAM, ""),
}
ADMIN = "admin/"  # every admin route: STAFF

ORG_NAME = "Zanzibar Kernel Works"
TITLE = "Quokka round seven"
INSTRUCTIONS = "Bring a towel, 4c1e."
SOURCE = "# the candidate's kernel 9f27\ndef solve():\n    pass\n"
MARKERS = (ORG_NAME, TITLE, INSTRUCTIONS, "kernel 9f27")


def all_routes(resolver: URLResolver | None = None, prefix: str = "") -> list[tuple[str, URLPattern]]:
    out = []
    for p in (resolver or get_resolver()).url_patterns:
        if isinstance(p, URLResolver):
            out += all_routes(p, prefix + str(p.pattern))
        else:
            out.append((prefix + str(p.pattern), p))
    return out


def kind_of(route: str) -> str:
    return STAFF if route.startswith(ADMIN) else ROUTES[route][0]


@dataclass
class Scene:
    org_slug: str
    assessment: Assessment
    candidate: Candidate
    invitation: Invitation
    submission: Submission
    second: Submission
    hidden: Problem
    owner: Any
    reviewer: Any
    outsiders: dict[str, Any]  # name -> user (None: anonymous)
    tokens: dict[str, str]  # name -> API token
    owner_token_id: int
    contest_slug: str


@pytest.fixture
def scene(monkeypatch: pytest.MonkeyPatch) -> Scene:
    monkeypatch.setattr("gridstride.lib.clock.now", lambda: T0 + timedelta(minutes=20))
    catalog = problems()
    Problem.objects.filter(slug="vector_add").update(is_hidden=True)  # only in the assessment
    org, owner = make_org(name=ORG_NAME)
    reviewer = make_user()
    actions.add_member(org, reviewer.get_username(), Role.REVIEWER)
    assessment = make_assessment(org, owner, title=TITLE, instructions=INSTRUCTIONS)
    candidate = seat(assessment)
    assert candidate.invitation is not None
    submission = judged(candidate, "softmax", source=SOURCE)
    other_org, mallory = make_org(make_user("mallory"))
    theirs = seat(make_assessment(other_org, mallory))
    third = seat(make_assessment(*make_org()))
    contest = make_contest(make_user(), [catalog["softmax"]], gpu_models=["cpu"])
    outsiders = {"mallory": mallory, "their-candidate": theirs.user, "third-candidate": third.user, "anonymous": None}
    tokens = {name: issue_token(user, "t")[1] for name, user in outsiders.items() if user is not None}
    owner_token, tokens["owner"] = issue_token(owner, "t")
    tokens["reviewer"] = issue_token(reviewer, "t")[1]
    return Scene(
        org_slug=org.slug,
        assessment=assessment,
        candidate=candidate,
        invitation=candidate.invitation,
        submission=submission,
        second=judged(candidate, "softmax", source=SOURCE, minutes=12),
        hidden=Problem.objects.get(slug="vector_add"),
        owner=owner,
        reviewer=reviewer,
        outsiders=outsiders,
        tokens=tokens,
        owner_token_id=owner_token.pk,
        contest_slug=contest.slug,
    )


def fill_values(route: str, s: Scene) -> dict[str, list[Any]]:
    """Every parameter a route can take, filled with the organization's objects (several values
    where more than one kind of object can stand there)."""
    a, sub = s.assessment, s.submission
    values: dict[str, list[Any]] = {
        "public_id": [sub.public_id if route.startswith("submissions/") else a.public_id],
        "assessment_id": [a.public_id],
        "invitation_id": [s.invitation.pk],
        "candidate_id": [s.candidate.pk],
        "submission_id": [sub.public_id],
        "action": ["resend", "revoke", "extra"],
        "token": [actions.invite_token(s.invitation), actions.invite_token(s.invitation)[:-6] + "forged"],
        "username": [s.candidate.user.get_username()],
        "token_id": [s.owner_token_id],
        "language": ["triton"],
        "label": ["A"],
        "pk": [1],
        "uidb64": [urlsafe_base64_encode(force_bytes(s.candidate.user_id))],
        # Admin parameters.
        "object_id": [sub.pk],
        "content_type_id": [ContentType.objects.get_for_model(Submission).pk],
        "id": [s.candidate.user_id],
        "app_label": ["submissions"],
        "url": ["assessments/"],
    }
    if route.startswith(("orgs/", "api/orgs/")):
        values["slug"] = [s.org_slug]
    elif route.startswith(("contests/", "api/contests/")):
        values["slug"] = [s.contest_slug]
    else:  # a problem: the assessment's hidden one, and one of its public ones
        values["slug"] = [s.hidden.slug, "softmax"] if route.startswith("a/") else [s.hidden.slug]
    if route.startswith("accounts/password/reset/<"):
        values["token"] = ["set-password", default_token_generator.make_token(s.owner)]
    return values


QUERY = {"submissions/": "?problem=vector_add", "": "?q=vector"}


def urls_of(route: str, s: Scene) -> list[str]:
    """The route with each combination of its parameters' values (a <name> or a (?P<name>...))."""
    values = fill_values(route, s)
    names = re.findall(r"<(?:\w+:)?(\w+)>|\(\?P<(\w+)>[^)]*\)", route)
    names = [a or b for a, b in names]
    missing = [n for n in names if n not in values]
    assert not missing, f"route {route!r} takes {missing}: add how to fill it (with the organization's objects)"
    urls = []
    for combo in itertools.product(*(values[n] for n in names)):
        path = route
        for value in combo:  # each parameter in turn, left to right
            path = re.sub(r"<(?:\w+:)?\w+>|\(\?P<\w+>[^)]*\)", str(value).replace("\\", r"\\"), path, count=1)
        path = path.replace("^", "").replace("$", "")
        if route.startswith("submissions/compare/"):
            path += f"?a={s.submission.public_id}&b={s.second.public_id}"
        urls.append("/" + path + QUERY.get(route, ""))
    return urls


def request(who: Any, method: str, url: str, token: str | None = None, client: Client | None = None) -> Any:
    c = client or Client()
    if client is None and who is not None:
        c.force_login(who)
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    return c.generic(method, url, **headers)


class Clients:
    """One signed-in client per person, made again after a route that may have signed it out."""

    def __init__(self, people: dict[str, Any]) -> None:
        self.people = people
        self.made: dict[str, Client] = {}

    def get(self, name: str) -> Client:
        if name not in self.made:
            c = Client()
            if self.people[name] is not None:
                c.force_login(self.people[name])
            self.made[name] = c
        return self.made[name]

    def forget(self) -> None:
        self.made.clear()


def to_login(response: Any) -> bool:
    return response.status_code == 302 and "/login/" in response["Location"]


# OWN routes that list the viewer's own things: they answer an outsider (with nothing of the organization).
OWN_LISTS = {"submissions/", "api/submissions"}


def check(route: str, response: Any) -> str | None:
    """Why this answer to an outsider is wrong, or None."""
    kind, status = kind_of(route), response.status_code
    body = response.content.decode(errors="replace")
    leaked = [m for m in MARKERS if m in body]
    if leaked:
        return f"shows {leaked}"
    if status >= 500:
        return f"{status}"
    if kind in (TEAM, OWNER, SEAT, INVITE) and status != 404:
        return f"{status}, not 404"
    if kind == API_TEAM and status not in (401, 404, 405):
        return f"{status}, not 401/404/405"
    if kind == OWN and 200 <= status < 300 and route not in OWN_LISTS:
        return f"{status} for an object of the organization"
    admin_ok = to_login(response) or status == 404
    if route in ("admin/login/", "admin/logout/"):  # the login form itself; signing out goes back to it
        admin_ok = status == 200 or (status == 302 and response["Location"].startswith("/admin/"))
    if kind == STAFF and not admin_ok:
        return f"{status}, not the admin's login"
    return None


def test_every_route_of_the_url_conf_is_classified() -> None:
    routed = {route for route, _ in all_routes() if not route.startswith(ADMIN)}
    unlisted = sorted(routed - set(ROUTES))
    assert not unlisted, (
        f"routes with no entry in ROUTES: {unlisted}. Say what guards each (a membership check, the seat, "
        "the owner's own objects) or, if it never touches an organization's data, why (NONE, with the reason)."
    )
    stale = sorted(set(ROUTES) - routed)
    assert not stale, f"ROUTES lists routes the URL conf no longer has: {stale}"
    assert sum(r.startswith(ADMIN) for r, _ in all_routes()) > 10, "the walk reaches the admin's routes too"
    assert all(why for kind, why in ROUTES.values() if kind == NONE), "every allow-listed route says why"


def test_no_route_lets_an_outsider_reach_the_organizations_objects(scene: Scene) -> None:
    s = scene
    clients = Clients({**s.outsiders, "its-own-candidate": s.candidate.user, "its-owner": s.owner})
    problems_found: list[str] = []
    asked = 0
    for route, _ in all_routes():
        kind, is_api = kind_of(route), route.startswith("api/")
        people = list(s.outsiders)
        if kind in (TEAM, OWNER):
            people.append("its-own-candidate")
        if kind == SEAT:
            people.append("its-owner")
        if kind == STAFF:  # the admin refuses whoever is not staff the same way: two kinds of outsider
            people, methods = ["mallory", "anonymous"], ("GET", "POST")
        else:
            methods = METHODS
        for url in urls_of(route, s):
            for name in people:
                for method in methods:
                    # The API takes tokens, never the session.
                    if is_api:
                        response = request(None, method, url, s.tokens.get(name))
                    else:
                        response = request(None, method, url, client=clients.get(name))
                    asked += 1
                    why = check(route, response)
                    if why:
                        problems_found.append(f"{method} {url} as {name} ({kind}): {why}")
            if "logout" in route:
                clients.forget()
    assert not problems_found, "\n".join(problems_found)
    assert asked > 2000
    # Nothing the walk sent changed the organization's objects.
    s.invitation.refresh_from_db()
    s.candidate.refresh_from_db()
    assert s.invitation.revoked_at is None and s.invitation.extra_pct == 0 and s.candidate.extra_pct == 0
    assert s.candidate.finished_at is None
    assert not Submission.objects.filter(problem=s.hidden).exists()
    assert Membership.objects.filter(organization__slug=s.org_slug).count() == 2
    assert Assessment.objects.filter(organization__slug=s.org_slug).count() == 1
    assert not Submission.objects.get(pk=s.submission.pk).is_public
    assert Token.objects.get(pk=s.owner_token_id).revoked_at is None


def test_the_walk_is_not_vacuous_members_and_the_candidate_do_get_their_pages(scene: Scene) -> None:
    s = scene
    answered = 0
    for route, _ in all_routes():
        kind = kind_of(route)
        if kind not in (TEAM, OWNER, SEAT, API_TEAM):
            continue
        for url in urls_of(route, s):
            if kind == API_TEAM:
                status = request(None, "GET", url, s.tokens["owner"]).status_code
            else:
                status = request(s.candidate.user if kind == SEAT else s.owner, "GET", url).status_code
            if "/a/invite/" in url:  # used by now: its own page says so
                continue
            assert status != 404, f"GET {url} as its own member or candidate: 404"
            answered += 1
    assert answered >= 28
    # The organizations page lists the viewer's own organizations, never another's.
    assert ORG_NAME in request(s.owner, "GET", "/orgs/").content.decode()


def test_one_organizations_slug_with_anothers_objects_is_a_404(scene: Scene) -> None:
    s = scene
    mallory = s.outsiders["mallory"]
    theirs = Assessment.objects.get(organization__memberships__user=mallory)
    their_candidate = Candidate.objects.get(assessment=theirs)
    other = theirs.organization.slug
    a, c = s.assessment.public_id, s.candidate.pk
    for url in (
        f"/orgs/{other}/a/{a}/",
        f"/orgs/{other}/a/{a}/export.csv",
        f"/orgs/{other}/a/{theirs.public_id}/c/{c}/",
        f"/orgs/{other}/a/{theirs.public_id}/c/{their_candidate.pk}/s/{s.submission.public_id}/source",
        f"/orgs/{other}/a/{theirs.public_id}/invitations/{s.invitation.pk}/revoke/",
        f"/orgs/{other}/a/{a}/c/{c}/extra/",
    ):
        for method in ("GET", "POST"):
            assert request(mallory, method, url).status_code == 404, f"{method} {url}"
    for url in (
        f"/api/orgs/{other}/assessments/{a}",
        f"/api/orgs/{other}/assessments/{theirs.public_id}/candidates/{c}",
    ):
        assert request(None, "GET", url, s.tokens["mallory"]).status_code == 404, url
    s.invitation.refresh_from_db()
    assert s.invitation.revoked_at is None


def test_a_reviewer_is_refused_every_owner_only_action_and_reads_the_rest(scene: Scene) -> None:
    s = scene
    owner_only = [route for route, (kind, _) in ROUTES.items() if kind == OWNER]
    assert len(owner_only) == 6
    for route in owner_only:
        for url in urls_of(route, s):
            for method in ("GET", "POST"):
                data = {"extra_pct": "50", "email": "x@example.com", "who": "mallory", "role": "owner"}
                c = Client()
                c.force_login(s.reviewer)
                response = c.post(url, data) if method == "POST" else c.get(url)
                assert response.status_code == 404, f"{method} {url} as a reviewer: {response.status_code}"
    s.invitation.refresh_from_db()
    s.candidate.refresh_from_db()
    assert s.invitation.revoked_at is None and s.candidate.extra_pct == 0
    assert not Membership.objects.filter(user__username="mallory", organization__slug=s.org_slug).exists()
    assert Invitation.objects.filter(assessment=s.assessment).count() == 1
    # What a reviewer is for: the organization, the comparison, reports, sources, the CSV, the API.
    for route, (kind, _) in ROUTES.items():
        if kind not in (TEAM, API_TEAM):
            continue
        for url in urls_of(route, s):
            if kind == API_TEAM:
                status = request(None, "GET", url, s.tokens["reviewer"]).status_code
            else:
                status = request(s.reviewer, "GET", url).status_code
            assert status == 200, f"GET {url} as a reviewer: {status}"
    # The owner's controls are not drawn for a reviewer.
    page = request(s.reviewer, "GET", f"/orgs/{s.org_slug}/a/{s.assessment.public_id}/").content.decode()
    assert "webhook-secret" not in page and "/edit/" not in page and "/revoke/" not in page


def test_an_assessment_takes_only_its_allowed_languages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("gridstride.lib.clock.now", lambda: T0 + timedelta(minutes=5))
    org, owner = make_org()
    assessment = make_assessment(org, owner, languages=["triton"])
    candidate = seat(assessment)
    c = Client()
    c.force_login(candidate.user)
    page = c.get(f"/a/{assessment.public_id}/p/softmax/").content.decode()
    assert '<option value="triton">' in page and '<option value="cuda">' not in page
    url = f"/a/{assessment.public_id}/p/softmax/submit/"
    refused = c.post(url, {"language": "cuda", "source": SOURCE, "mode": "run"}, HTTP_ACCEPT="application/json")
    assert refused.status_code == 400 and refused.json()["error"] == "This assessment takes triton."
    assert not Submission.objects.filter(owner=candidate.user).exists()
    taken = c.post(url, {"language": "triton", "source": SOURCE, "mode": "run"}, HTTP_ACCEPT="application/json")
    assert taken.status_code == 201, taken.content
    assert list(Submission.objects.filter(owner=candidate.user).values_list("language", flat=True)) == ["triton"]
    # No languages ticked: each problem's own.
    open_one = seat(make_assessment(org, owner, languages=[]))
    c.force_login(open_one.user)
    r = c.post(
        f"/a/{open_one.assessment.public_id}/p/softmax/submit/",
        {"language": "cuda", "source": "__global__ void k() {}\n", "mode": "run"},
        HTTP_ACCEPT="application/json",
    )
    assert r.status_code == 201, r.content
