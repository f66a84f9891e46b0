"""Invitations: single-use signed links with expiry, resend and revoke; the link creates or binds an
account; emails have a plain-text and an HTML part."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from assessment_fixtures import BASE_URL, T0, make_assessment, make_org
from django.core import mail
from django.test import Client
from gridstride.assessments import actions
from gridstride.assessments.models import Candidate
from gridstride.lib import clock
from site_fixtures import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def frozen(monkeypatch: Any) -> Any:
    monkeypatch.setattr(clock, "now", lambda: T0)
    return T0


def link_in(message: Any) -> str:
    import re

    found = re.search(r"http://testserver(/a/invite/[^/\s]+/)", message.body)
    assert found, message.body
    return found.group(1)


def test_an_invitation_email_has_text_and_html_parts_and_a_working_link(frozen: Any) -> None:
    a = make_assessment(*make_org())
    actions.invite(a, "Ada@Example.com", name="Ada", extra_pct=25, base_url=BASE_URL, now=T0)
    [message] = mail.outbox
    assert message.to == ["ada@example.com"]
    assert "75 minutes" in message.body
    html, kind = message.alternatives[0]
    assert kind == "text/html" and link_in(message).split("/")[-2][:20] in html
    c = Client()
    page = c.get(link_in(message))
    assert page.status_code == 200 and "Create account and accept" in page.content.decode()
    response = c.post(link_in(message), {"username": "ada", "password": "a-long-password-1"})
    assert response.status_code == 302
    seat = Candidate.objects.get(user__username="ada")
    assert seat.user.email == "ada@example.com" and seat.extra_pct == 25 and seat.participant_seed > 0


def test_a_link_works_once(frozen: Any) -> None:
    a = make_assessment(*make_org())
    actions.invite(a, "bo@example.com", base_url=BASE_URL, now=T0)
    url = link_in(mail.outbox[0])
    assert Client().post(url, {"username": "bob", "password": "a-long-password-1"}).status_code == 302
    again = Client().post(url, {"username": "bo2", "password": "a-long-password-1"})
    assert again.status_code == 404 and "already used" in again.content.decode()
    assert Candidate.objects.filter(assessment=a).count() == 1


def test_a_signed_in_user_binds_the_seat_to_their_existing_account(frozen: Any) -> None:
    a = make_assessment(*make_org())
    actions.invite(a, "cy@example.com", base_url=BASE_URL, now=T0)
    user = make_user("cy")
    c = Client()
    c.force_login(user)
    c.post(link_in(mail.outbox[0]))
    assert Candidate.objects.get(assessment=a).user == user


def test_an_expired_link_is_refused(monkeypatch: Any) -> None:
    a = make_assessment(*make_org())
    actions.invite(a, "di@example.com", base_url=BASE_URL, now=T0)
    url = link_in(mail.outbox[0])
    monkeypatch.setattr(clock, "now", lambda: T0 + timedelta(days=actions.INVITE_DAYS))
    response = Client().post(url, {"username": "dia", "password": "a-long-password-1"})
    assert response.status_code == 404 and "expired" in response.content.decode()
    assert not Candidate.objects.exists()


def test_a_revoked_link_is_refused_and_a_resent_one_replaces_the_old(frozen: Any) -> None:
    a = make_assessment(*make_org())
    inv = actions.invite(a, "ed@example.com", base_url=BASE_URL, now=T0)
    first = link_in(mail.outbox[0])
    actions.resend(inv, base_url=BASE_URL, now=T0)
    second = link_in(mail.outbox[1])
    assert first != second
    assert "replaced" in Client().get(first).content.decode()
    assert Client().get(second).status_code == 200
    assert actions.revoke(inv, T0)
    response = Client().get(second)
    assert response.status_code == 404 and "withdrawn" in response.content.decode()
    with pytest.raises(actions.AssessmentError):
        actions.resend(inv, base_url=BASE_URL, now=T0)


def test_a_forged_or_mangled_link_is_refused(frozen: Any) -> None:
    a = make_assessment(*make_org())
    actions.invite(a, "fa@example.com", base_url=BASE_URL, now=T0)
    url = link_in(mail.outbox[0])
    assert Client().get(url[:-8] + "AAAAAAA/").status_code == 404
    assert "not valid" in Client().get("/a/invite/not-a-token/").content.decode()


def test_the_team_invites_resends_revokes_and_sets_extra_time_from_the_page(frozen: Any) -> None:
    org, owner = make_org()
    a = make_assessment(org, owner)
    c = Client()
    c.force_login(owner)
    base = f"/orgs/{org.slug}/a/{a.public_id}/"
    c.post(base + "invite/", {"email": "gi@example.com", "name": "Gi", "extra_pct": "0"})
    inv = a.invitations.get()
    c.post(base + f"invitations/{inv.pk}/extra/", {"extra_pct": "50"})
    c.post(base + f"invitations/{inv.pk}/resend/")
    inv.refresh_from_db()
    assert inv.extra_pct == 50 and inv.sent_count == 2 and len(mail.outbox) == 2
    c.post(base + f"invitations/{inv.pk}/revoke/")
    inv.refresh_from_db()
    assert inv.revoked_at is not None
    page = c.get(base).content.decode()
    assert "gi@example.com" in page and "revoked" in page
