"""The two-factor pages (#28.2) and the signed-in devices (#28.3) speak the player's language:
allauth.mfa's own pages, the site's list of passkeys, the devices page and the settings links
to them, in each of the five languages."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from accounts.models import User
from tests.conftest import client_for

pytestmark = pytest.mark.django_db
PAGES = [
    ("profile_edit", "Two-factor sign-in and passkeys"),
    ("mfa_index", "Two-Factor Authentication"),
    ("mfa_index", "Authenticator App"),
    ("mfa_index", "Recovery Codes"),
    ("mfa_list_webauthn", "Security Keys"),
    ("mfa_list_webauthn", "No security keys have been added."),
    ("account_login", "Sign in with a passkey"),
    ("account_login", "Send me a sign-in code"),
    ("usersessions_list", "Signed-in devices"),
    ("usersessions_list", "Sign out everywhere else"),
]


@pytest.mark.parametrize("language", ["en", "cs", "sk", "ca", "hu"])
def test_every_two_factor_page_is_in_the_player_s_language(make_user, language):
    player = make_user(username="ilona")
    User.objects.filter(pk=player.pk).update(language=language)
    # Two devices signed in through the form: the devices page offers to sign out the other.
    for _device in range(2):
        client = Client()
        login = {"login": "ilona", "password": "correct horse battery staple"}
        assert client.post(reverse("account_login"), login).status_code == 302
    visitor = client_for(None)
    for name, english in PAGES:
        with translation.override(language):
            shown = translation.gettext(english)
        assert language == "en" or shown != english, (language, english)
        who = visitor if name == "account_login" else client
        answer = who.get(reverse(name), HTTP_ACCEPT_LANGUAGE=language)
        assert answer.status_code == 200, (name, answer.status_code)
        assert shown in answer.content.decode(), (language, name, shown)
