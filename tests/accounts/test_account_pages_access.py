"""Who may open allauth's pages (#28): a visitor is sent to sign in (or, for a step of signing
in not begun, back to its start); a signed-in player gets the page, or first "Confirm Access"
where allauth asks for it before a change; a page about one key answers 404 for another
player's key, by GET or POST, and changes nothing; the devices page lists the player's own
devices only."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.conftest import forget_boards
from tests.factories import UserFactory
from tests.support.accounts import (
    a_key,
    authenticators,
    signed_in_by_the_form,
    with_an_authenticator_app,
)

pytestmark = pytest.mark.django_db

LOGIN = reverse("account_login")
REAUTH = reverse("account_reauthenticate")
# (URL name, where a visitor goes: "login" to sign in, or the page it is sent to instead.)
VISITOR = [
    ("account_login", None),  # the page itself
    ("account_request_login_code", None),
    ("account_confirm_login_code", reverse("account_request_login_code")),
    ("account_reauthenticate", "login"),
    ("mfa_authenticate", LOGIN),
    ("mfa_reauthenticate", "login"),
    ("mfa_index", "login"),
    ("mfa_activate_totp", "login"),
    ("mfa_deactivate_totp", "login"),
    ("mfa_view_recovery_codes", "login"),
    ("mfa_generate_recovery_codes", "login"),
    ("mfa_download_recovery_codes", "login"),
    ("mfa_list_webauthn", "login"),
    ("mfa_add_webauthn", "login"),
    ("mfa_reauthenticate_webauthn", "login"),
    ("mfa_login_webauthn", LOGIN),
    ("usersessions_list", "login"),
    ("devices", "login"),
]
# For a signed-in player with an authenticator app: 200, or "reauth" (allauth asks for the
# password again first, then opens the page).
PLAYER = [
    ("mfa_index", 200),
    ("mfa_list_webauthn", 200),
    ("usersessions_list", 200),
    ("devices", 200),
    ("account_reauthenticate", 200),
    ("mfa_reauthenticate", 200),
    ("mfa_activate_totp", "reauth"),  # already on: allauth sends to the app's page, below
    ("mfa_deactivate_totp", "reauth"),
    ("mfa_view_recovery_codes", "reauth"),
    ("mfa_generate_recovery_codes", "reauth"),
    ("mfa_download_recovery_codes", "reauth"),
    ("mfa_add_webauthn", "reauth"),
]


@pytest.fixture(autouse=True)
def _fresh_cache():
    forget_boards()
    yield
    forget_boards()


@pytest.mark.parametrize(("name", "goes"), VISITOR, ids=[name for name, _ in VISITOR])
@pytest.mark.parametrize("method", ["get", "post"])
def test_a_visitor_is_sent_to_sign_in(name, goes, method):
    answer = getattr(Client(), method)(reverse(name))
    if goes is None or (name == "mfa_login_webauthn" and method == "post"):
        # The page itself; posted empty, the form's refusal (the passkey sign-in's too).
        assert answer.status_code == (200 if method == "get" else 400)
    elif goes == "login":
        assert answer.status_code == 302 and answer.url.startswith(LOGIN + "?next=")
    else:
        assert answer.status_code == 302 and answer.url == goes


@pytest.mark.parametrize(("name", "answer"), PLAYER, ids=[name for name, _ in PLAYER])
def test_a_signed_in_player_gets_the_page_or_confirms_access_first(name, answer):
    alice = UserFactory(username="alice")
    client = signed_in_by_the_form(alice, confirmed=False)
    with_an_authenticator_app(alice)
    first = client.get(reverse(name))
    if answer == 200:
        assert first.status_code == 200
        return
    assert first.status_code == 302 and first.url.startswith(REAUTH + "?next=")
    client.post(first.url, {"password": "correct horse battery staple"})
    then = client.get(reverse(name))
    if name == "mfa_activate_totp":  # the app is on already: to its page
        assert then.status_code == 302 and then.url == reverse("mfa_deactivate_totp")
    else:
        assert then.status_code == 200, (name, then.status_code)


def test_a_signed_in_player_is_sent_on_from_the_sign_in_pages():
    client = signed_in_by_the_form(UserFactory(username="alice"), confirmed=False)
    for name in ["account_login", "account_request_login_code"]:
        answer = client.get(reverse(name))
        assert answer.status_code == 302 and answer.url == reverse("lobby")


def test_a_player_s_own_key_opens_to_rename_and_remove():
    alice = UserFactory(username="alice")
    client = signed_in_by_the_form(alice)
    key = a_key(alice, "my phone")
    for name in ["mfa_edit_webauthn", "mfa_remove_webauthn"]:
        page = client.get(reverse(name, args=[key.pk]))
        assert page.status_code == 200 and "my phone" in page.text
    assert "my phone" in client.get(reverse("mfa_list_webauthn")).text


@pytest.mark.parametrize("name", ["mfa_edit_webauthn", "mfa_remove_webauthn"])
@pytest.mark.parametrize("method", ["get", "post"])
def test_another_player_s_key_is_not_found(name, method):
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    bobs = a_key(bob, "bob's phone")
    client = signed_in_by_the_form(alice)
    a_key(alice, "my phone")
    answer = getattr(client, method)(reverse(name, args=[bobs.pk]), {"name": "mine now"})
    assert answer.status_code == 404
    assert "bob" not in answer.text
    assert authenticators(bob) == [("webauthn", bobs.data)]
    assert "bob's phone" not in client.get(reverse("mfa_list_webauthn")).text
    # A key that is nobody's: the same.
    assert getattr(client, method)(reverse(name, args=[987654])).status_code == 404


def test_a_key_needs_confirmed_access_before_it_is_renamed_or_removed():
    alice = UserFactory(username="alice")
    client = signed_in_by_the_form(alice, confirmed=False)
    key = a_key(alice, "my phone")
    for name in ["mfa_edit_webauthn", "mfa_remove_webauthn"]:
        answer = client.post(reverse(name, args=[key.pk]), {"name": "renamed"})
        assert answer.status_code == 302 and answer.url.startswith(REAUTH)
    assert authenticators(alice) == [("webauthn", key.data)]


def test_the_devices_page_lists_the_player_s_own_devices_only():
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    laptop = signed_in_by_the_form(alice, HTTP_USER_AGENT="Alice laptop", REMOTE_ADDR="10.0.0.1")
    signed_in_by_the_form(alice, HTTP_USER_AGENT="Alice phone", REMOTE_ADDR="10.0.0.2")
    bobs = signed_in_by_the_form(bob, HTTP_USER_AGENT="Bob tablet", REMOTE_ADDR="10.0.0.99")
    page = laptop.get(reverse("usersessions_list")).text
    assert page.count('<li class="device') == 2
    assert "10.0.0.1" in page and "10.0.0.2" in page and "10.0.0.99" not in page
    theirs = bobs.get(reverse("devices")).text
    assert theirs.count('<li class="device') == 1 and "10.0.0.1" not in theirs
    # Signing out everywhere else ends alice's other device, never bob's.
    laptop.post(reverse("usersessions_list"), {"action": "logout"})
    assert bobs.get(reverse("profile_edit")).status_code == 200
