"""The sign-up form says the password's rules when they matter: a short hint before anything is
typed, every rule once a password is refused; Django's validators still decide (issue 25, 8)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from accounts.models import User

pytestmark = pytest.mark.django_db

# Django's validators (settings.AUTH_PASSWORD_VALIDATORS), as their help texts say them.
EVERY_RULE = (
    "can\u2019t be too similar to your other personal information",
    "must contain at least 8 characters",
    "can\u2019t be a commonly used password",
    "can\u2019t be entirely numeric",
)


def _help_of_the_password(content: str) -> str:
    start = content.index('id="id_password1_helptext"')
    return content[start : content.index("</span>", start)]


def _sign_up(password: str, name: str = "dora"):
    return Client().post(
        reverse("account_signup"),
        {
            "email": f"{name}@example.com",
            "username": name,
            "password1": password,
            "password2": password,
        },
    )


def test_before_anything_is_typed_the_form_gives_one_short_hint():
    content = Client().get(reverse("account_signup")).content.decode()
    hint = _help_of_the_password(content)
    assert "At least 8 characters." in hint
    for rule in EVERY_RULE:
        assert rule not in content
    assert 'aria-describedby="id_password1_helptext"' in content


def test_the_hint_is_in_the_players_language():
    client = Client(HTTP_ACCEPT_LANGUAGE="cs")
    with translation.override("cs"):
        content = client.get(reverse("account_signup")).content.decode()
    assert "Alespoň 8 znaků." in _help_of_the_password(content)


@pytest.mark.parametrize(
    ("password", "error"),
    [
        ("12345678", "This password is entirely numeric."),
        ("short", "This password is too short."),
        ("password", "This password is too common."),
        ("dora@example.com", "The password is too similar to the"),
    ],
)
def test_a_refused_password_gets_its_error_and_every_rule(password, error):
    response = _sign_up(password)
    assert response.status_code == 400
    content = response.content.decode()
    assert error in content
    for rule in EVERY_RULE:
        assert rule in _help_of_the_password(content)
    assert not User.objects.exists()


def test_an_error_elsewhere_does_not_list_the_password_rules():
    Client().post(
        reverse("account_signup"),
        {"email": "not an address", "username": "dora", "password1": "x", "password2": "x"},
    )
    response = Client().post(
        reverse("account_signup"),
        {
            "email": "not an address",
            "username": "dora",
            "password1": "a long pass phrase 42",
            "password2": "a long pass phrase 42",
        },
    )
    content = response.content.decode()
    assert response.status_code == 400 and "Enter a valid email address." in content
    assert "At least 8 characters." in _help_of_the_password(content)
    assert EVERY_RULE[0] not in content


def test_a_good_password_still_signs_up():
    response = _sign_up("a long pass phrase 42")
    assert response.status_code == 302
    assert User.objects.filter(username="dora").exists()
