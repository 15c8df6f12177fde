"""Signing up, confirming the e-mail, signing in and out, resetting a password."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts.models import User

pytestmark = pytest.mark.django_db

PASSWORD = "a long pass phrase 42"


def _sign_up(client: Client, name: str = "dora"):
    return client.post(
        reverse("account_signup"),
        {
            "email": f"{name}@example.com",
            "username": name,
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )


def test_signing_up_creates_the_player_signs_them_in_and_sends_a_confirmation_link():
    client = Client()
    response = _sign_up(client)
    assert response.status_code == 302
    user = User.objects.get(username="dora")
    assert user.time_zone == "UTC"
    assert client.get(reverse("lobby")).context["user"] == user
    assert len(mail.outbox) == 1
    link = re.search(r"https?://[^\s]+/accounts/confirm-email/[^\s]+", mail.outbox[0].body).group(0)
    path = link.split("://", 1)[1].split("/", 1)[1]
    confirm = client.post("/" + path)
    assert confirm.status_code == 302
    assert user.emailaddress_set.get().verified


def test_a_taken_username_or_mismatched_passwords_are_refused_with_a_message():
    _sign_up(Client())
    again = _sign_up(Client())
    assert again.status_code == 400
    assert b"already" in again.content
    assert User.objects.count() == 1


def test_signing_in_by_username_or_email_and_signing_out():
    _sign_up(Client())
    for login in ["dora", "dora@example.com"]:
        client = Client()
        response = client.post(reverse("account_login"), {"login": login, "password": PASSWORD})
        assert response.status_code == 302
        assert client.get(reverse("profile_edit")).status_code == 200
        client.post(reverse("account_logout"))
        assert client.get(reverse("profile_edit")).status_code == 302


def test_a_forgotten_password_is_reset_through_an_emailed_link():
    _sign_up(Client())
    mail.outbox.clear()
    client = Client()
    client.post(reverse("account_reset_password"), {"email": "dora@example.com"})
    assert len(mail.outbox) == 1
    assert "/accounts/password/reset/key/" in mail.outbox[0].body


def test_the_profile_page_needs_a_signed_in_player():
    response = Client().get(reverse("profile_edit"))
    assert response.status_code == 302
    assert reverse("account_login") in response.url


def test_the_language_selector_remembers_a_players_choice_on_their_profile():
    _sign_up(Client(), "lena")
    client = Client()
    client.post(reverse("account_login"), {"login": "lena", "password": PASSWORD})
    response = client.post(reverse("language_set"), {"language": "cs", "next": "/profile/"})
    assert response.status_code == 302 and response.url == "/profile/"
    assert User.objects.get(username="lena").language == "cs"
    fresh = Client()  # another browser: the profile, not the cookie, decides
    fresh.post(reverse("account_login"), {"login": "lena", "password": PASSWORD})
    assert b'<html lang="cs"' in fresh.get(reverse("lobby")).content


def test_a_visitors_language_is_kept_in_a_cookie_and_bad_choices_are_refused():
    client = Client()
    response = client.post(
        reverse("language_set"), {"language": "hu", "next": "https://evil.example/"}
    )
    assert response.url == "/"
    assert b'<html lang="hu"' in client.get(reverse("lobby")).content
    assert client.post(reverse("language_set"), {"language": "xx"}).status_code == 400
