"""Organization isolation: every assessments page, file and API route answers 404 to anyone outside
the organization, a member of another organization and its candidates included. The test walks the
URL conf, so a new route without a check fails here (and one with a parameter it cannot fill)."""

from __future__ import annotations

from typing import Any

import pytest
from assessment_fixtures import judged, make_assessment, make_org, seat, world
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from gridstride.api.actions import issue_token
from gridstride.api.views import api
from gridstride.assessments.actions import invite_token
from site_fixtures import make_user

pytestmark = pytest.mark.django_db


def _patterns(resolver: URLResolver, prefix: str = "") -> list[tuple[str, URLPattern]]:
    out = []
    for p in resolver.url_patterns:
        if isinstance(p, URLResolver):
            out += _patterns(p, prefix + str(p.pattern))
        else:
            out.append((prefix + str(p.pattern), p))
    return out


def assessment_routes() -> list[tuple[str, URLPattern]]:
    routes = [
        (route, p) for route, p in _patterns(get_resolver()) if p.lookup_str.startswith("gridstride.assessments.")
    ]
    assert len(routes) >= 20, "the walk found the assessments routes"
    return routes


def fill(route: str, values: dict[str, Any]) -> str:
    import re

    def one(match: re.Match[str]) -> str:
        name = match.group(2)
        if name not in values:
            raise AssertionError(f"route {route!r} takes {name!r}: add how to fill it (and its check) to this test")
        return str(values[name])

    return "/" + re.sub(r"<(?:(\w+):)?(\w+)>", one, route).lstrip("^").rstrip("$")


@pytest.fixture
def scene() -> dict[str, Any]:
    w = world()
    sub = judged(w.candidate, "softmax")
    other_org, mallory = make_org(make_user("mallory"))
    theirs = make_assessment(other_org, mallory)
    their_candidate = seat(theirs)
    outsider_seat = seat(make_assessment(*make_org()))  # a candidate of a third organization
    return {
        "w": w,
        "sub": sub,
        "mallory": mallory,
        "other_org": other_org,
        "theirs": theirs,
        "their_candidate": their_candidate,
        "outsider_seat": outsider_seat,
    }


def values_of(scene: dict[str, Any]) -> dict[str, Any]:
    w = scene["w"]
    return {
        "slug": w.org.slug,
        "public_id": w.assessment.public_id,
        "invitation_id": w.invitation.pk,
        "candidate_id": w.candidate.pk,
        "submission_id": scene["sub"].public_id,
        "action": "resend",
        "token": invite_token(w.invitation)[:-6] + "forged",
        "slug_problem": "softmax",
    }


def test_every_assessments_route_is_a_404_for_other_organizations_and_their_candidates(scene: dict[str, Any]) -> None:
    values = values_of(scene)
    outsiders = [scene["mallory"], scene["their_candidate"].user, scene["outsider_seat"].user, None]
    for route, pattern in assessment_routes():
        # Candidate routes name the problem `slug` too; the org routes' slug is the organization.
        url = fill(route, {**values, "slug": "softmax"} if route.startswith("a/") else values)
        for who in outsiders:
            c = Client()
            if who is not None:
                c.force_login(who)
            if pattern.name == "orgs":
                # The one route without an organization in it: the viewer's own list (or log in).
                response = c.get(url)
                assert response.status_code in (200, 302)
                assert scene["w"].org.name not in response.content.decode()
                continue
            for method in ("get", "post"):
                status = getattr(c, method)(url).status_code
                assert status == 404, f"{method.upper()} {url} as {who}: {status} ({pattern.name})"


def test_a_members_own_routes_do_answer_so_the_walk_is_not_vacuous(scene: dict[str, Any]) -> None:
    values = values_of(scene)
    w = scene["w"]
    team = Client()
    team.force_login(w.owner)
    cand = Client()
    cand.force_login(w.candidate.user)
    answered = 0
    for route, pattern in assessment_routes():
        if pattern.name in ("accept",):
            continue
        client = cand if route.startswith("a/") else team
        url = fill(route, {**values, "slug": "softmax"} if route.startswith("a/") else values)
        status = client.get(url).status_code
        assert status != 404, f"GET {url} as its own member: 404 ({pattern.name})"
        answered += 1
    assert answered >= 18


def test_mixing_one_organizations_slug_with_anothers_objects_is_a_404(scene: dict[str, Any]) -> None:
    w, mallory, theirs = scene["w"], scene["mallory"], scene["theirs"]
    c = Client()
    c.force_login(mallory)
    other = scene["other_org"].slug
    for url in (
        f"/orgs/{other}/a/{w.assessment.public_id}/",
        f"/orgs/{other}/a/{w.assessment.public_id}/export.csv",
        f"/orgs/{other}/a/{theirs.public_id}/c/{w.candidate.pk}/",
        f"/orgs/{other}/a/{theirs.public_id}/c/{scene['their_candidate'].pk}/s/{scene['sub'].public_id}/source",
        f"/orgs/{other}/a/{theirs.public_id}/invitations/{w.invitation.pk}/revoke/",
    ):
        assert c.get(url).status_code == 404, url
        assert c.post(url).status_code == 404, url
    w.invitation.refresh_from_db()
    assert w.invitation.revoked_at is None


def test_every_assessments_api_route_is_a_404_for_another_organizations_token(scene: dict[str, Any]) -> None:
    values = values_of(scene)
    api_values = {"slug": values["slug"], "assessment_id": values["public_id"], "candidate_id": values["candidate_id"]}
    _, theirs = issue_token(scene["mallory"], "t")
    _, mine = issue_token(scene["w"].owner, "t")
    routes = [str(p.pattern) for p in api.urls[0] if str(p.pattern).startswith("orgs/")]
    assert len(routes) >= 3
    for route in routes:
        url = "/api" + fill(route, api_values)
        assert Client().get(url, HTTP_AUTHORIZATION=f"Bearer {theirs}").status_code == 404, url
        assert Client().get(url).status_code == 401, url
        assert Client().get(url, HTTP_AUTHORIZATION=f"Bearer {mine}").status_code == 200, url
