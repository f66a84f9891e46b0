"""Accounts: sign up, log in and out, password reset by email, profile, API tokens."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from gridstride.api.actions import issue_token
from gridstride.api.models import Token
from site_fixtures import PASSWORD, make_submission, make_user, problems

pytestmark = pytest.mark.django_db


def signup(client: Client, username: str = "ada", email: str = "ada@example.com", **extra: str):  # type: ignore[no-untyped-def]
    data = {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD, **extra}
    return client.post("/accounts/signup/", data)


def test_signing_up_creates_the_account_logs_in_and_follows_next(client: Client) -> None:
    response = signup(client, next="/problems/softmax/")
    assert response.status_code == 302 and response["Location"] == "/problems/softmax/"
    user = get_user_model().objects.get(username="ada")
    assert user.email == "ada@example.com" and user.check_password(PASSWORD)
    assert client.get("/").context["user"] == user


def test_signup_refuses_a_taken_name_or_email_and_weak_passwords(client: Client) -> None:
    make_user("ada")
    assert "That username is taken" in signup(client, username="ADA", email="x@example.com").content.decode()
    assert "reset its password" in signup(client, username="bob", email="ADA@example.com").content.decode()
    weak = client.post(
        "/accounts/signup/", {"username": "carl", "email": "c@example.com", "password1": "123", "password2": "123"}
    )
    assert weak.status_code == 200 and not get_user_model().objects.filter(username="carl").exists()


def test_signup_never_redirects_off_site(client: Client) -> None:
    response = signup(client, next="https://evil.example/")
    assert response["Location"] == "/"


def test_log_in_and_log_out(client: Client) -> None:
    make_user("ada")
    response = client.post("/accounts/login/", {"username": "ada", "password": PASSWORD, "next": "/leaderboards/"})
    assert response.status_code == 302 and response["Location"] == "/leaderboards/"
    assert client.get("/accounts/logout/").status_code == 405  # logging out is a POST (CSRF-protected)
    assert client.post("/accounts/logout/").status_code == 302
    assert not client.get("/").context["user"].is_authenticated
    bad = client.post("/accounts/login/", {"username": "ada", "password": "wrong"})
    assert bad.status_code == 200 and "correct username and password" in bad.content.decode()


def test_password_reset_mails_a_one_time_link_that_sets_a_new_password(client: Client) -> None:
    make_user("ada")
    response = client.post("/accounts/password/reset/", {"email": "ada@example.com"})
    assert response.status_code == 302
    assert len(mail.outbox) == 1
    body = mail.outbox[0].body
    assert mail.outbox[0].subject == "Reset your Gridstride password"
    link = re.search(r"http://testserver(/accounts/password/reset/\S+/)", body)
    assert link, body
    form_page = client.get(link.group(1), follow=True)
    assert "Choose a new password" in form_page.content.decode()
    new = "another-long-password-7"
    done = client.post(form_page.redirect_chain[-1][0], {"new_password1": new, "new_password2": new})
    assert done.status_code == 302
    assert get_user_model().objects.get(username="ada").check_password(new)
    # The link works once.
    assert "invalid or was already used" in client.get(link.group(1), follow=True).content.decode()


def test_password_reset_for_an_unknown_email_reveals_nothing(client: Client) -> None:
    response = client.post("/accounts/password/reset/", {"email": "nobody@example.com"})
    assert response.status_code == 302 and len(mail.outbox) == 0


def test_the_profile_shows_solved_problems_and_best_results(client: Client) -> None:
    ps = problems()
    ada = make_user("ada")
    make_submission(ada, ps["softmax"], score_scale=1.0)
    best = make_submission(ada, ps["softmax"], score_scale=0.9)
    make_submission(ada, ps["vector_add"], verdict="wrong_answer", mode="run")
    html = client.get("/users/ada/").content.decode()
    assert "<strong>1</strong> solved" in html and "<strong>2</strong> attempted" in html
    assert "Row-wise Softmax" in html
    assert 'data-testid="best-results"' in html
    assert f"{best.score_us:.1f}"[:4] in html
    assert client.get("/users/nobody/").status_code == 404


def test_others_see_only_public_submissions_on_a_profile(client: Client) -> None:
    p = problems()["softmax"]
    ada = make_user("ada")
    private = make_submission(ada, p)
    public = make_submission(ada, p, is_public=True)
    html = client.get("/users/ada/").content.decode()
    assert f"/submissions/{public.public_id}/" in html
    assert f"/submissions/{private.public_id}/" not in html
    client.login(username="ada", password=PASSWORD)
    assert f"/submissions/{private.public_id}/" in client.get("/users/ada/").content.decode()


def test_tokens_are_created_shown_once_listed_by_prefix_and_revocable(client: Client) -> None:
    make_user("ada")
    client.login(username="ada", password=PASSWORD)
    # Post, redirect, get: the POST answers with a redirect; the page it leads to shows the token.
    posted = client.post("/accounts/tokens/", {"name": "laptop"})
    assert posted.status_code == 302 and posted["Location"] == "/accounts/tokens/"
    response = client.get("/accounts/tokens/")
    html = response.content.decode()
    token = re.search(r'<code id="new-token-value">(gs_[\w-]+)</code>', html)
    assert token, html
    assert 'data-testid="copy-token"' in html and 'data-copy="#new-token-value"' in html
    assert response["Cache-Control"] == "no-store"
    # Shown once: a reload neither shows it again nor makes a second token.
    listing = client.get("/accounts/tokens/").content.decode()
    assert Token.objects.count() == 1
    assert token.group(1) not in listing and "laptop" in listing
    row = Token.objects.get()
    assert row.prefix in listing
    assert client.post(f"/accounts/tokens/{row.pk}/revoke/").status_code == 302
    row.refresh_from_db()
    assert row.revoked_at is not None
    assert "revoked" in client.get("/accounts/tokens/").content.decode()


def test_nobody_can_revoke_someone_elses_token(client: Client) -> None:
    owner = make_user("owner")
    row, _ = issue_token(owner, "cli")
    make_user("mallory")
    client.login(username="mallory", password=PASSWORD)
    client.post(f"/accounts/tokens/{row.pk}/revoke/")
    row.refresh_from_db()
    assert row.revoked_at is None


def test_token_pages_need_a_login(client: Client) -> None:
    response = client.get("/accounts/tokens/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
