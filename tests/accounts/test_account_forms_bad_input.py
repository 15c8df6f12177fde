"""Bad input on allauth's forms (#28): signing in, by a mailed code, "confirm it is you", the
second step, an authenticator app, passkeys, and the devices page. An empty form, a wrong code,
an overlong field or a value of the wrong type answers 400 (429 when it is one try too many)
with the same page and what was wrong, never a 500; and nothing changes: nobody is signed in,
no authenticator is added or renamed, no device is signed out."""

from __future__ import annotations

import re

import pytest
from allauth.mfa.models import Authenticator
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts.models import User
from tests.conftest import forget_boards
from tests.factories import UserFactory
from tests.support.accounts import (
    PASSWORD,
    a_key,
    authenticators,
    signed_in_by_the_form,
    with_an_authenticator_app,
)

pytestmark = pytest.mark.django_db

LONG = "x" * 5000
# What a form field may be sent instead of what the page puts there.
ODD_TEXT = ["", " ", LONG, "a\x00b", "%FF", "[]", "{}", "null", "-1", "9" * 400]
# What the passkey pages' hidden "credential" may hold instead of the browser's answer: not
# JSON, JSON of every other type, and objects with parts missing or of the wrong type.
ODD_CREDENTIALS = [
    "",
    "not json",
    "[]",
    "{}",
    "null",
    "1",
    '"text"',
    '{"id": 1}',
    '{"id": "AAAA", "rawId": "AAAA", "type": "public-key", "response": {}}',
    '{"id": "AAAA", "rawId": "AAAA", "type": "public-key", "response": '
    '{"clientDataJSON": "e30", "authenticatorData": "AAAA", "signature": "AAAA"}}',
    '{"id": "AAAA", "rawId": "AAAA", "type": "public-key", "response": '
    '{"clientDataJSON": "e30", "attestationObject": "AAAA"}}',
    '{"id": [], "response": []}',
    "[" * 500,
]


@pytest.fixture(autouse=True)
def _fresh_counts():
    """allauth's and axes' counts of failures live in the cache: each test starts with none."""
    forget_boards()
    yield
    forget_boards()


def refused(response, *, message: str | None = None) -> bool:
    """A 4xx (400, or 429 for too many tries) that says what was wrong, in an error list or an
    alert, on the site's page (its header), not a bare error."""
    text = response.content.decode("utf-8", "replace")
    says = 'class="errorlist' in text or 'role="alert"' in text
    if message is not None:
        says = says and message in text
    return response.status_code in (400, 429) and says and "site-header" in text


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"login": "", "password": ""},
        {"login": "alice", "password": "not the password"},
        {"login": "alice"},
        {"login": LONG, "password": LONG},
        {"login": "alice\x00", "password": PASSWORD},
        {"login": ["alice", "bob"], "password": ["x", "y"]},
    ],
    ids=["nothing", "empty", "wrong password", "no password", "overlong", "nul", "lists"],
)
def test_a_refused_sign_in_answers_400_with_the_form_and_why(fields):
    UserFactory(username="alice")
    client = Client()
    answer = client.post(reverse("account_login"), fields)
    assert refused(answer), (answer.status_code, answer.content[:300])
    assert 'name="login"' in answer.text  # the same page, to try again
    assert not signed_in(client)


def test_the_sign_in_page_s_other_forms_get_the_same_answer():
    """The sign-up, e-mail, password and reset forms are allauth's too: the same rule."""
    alice = UserFactory(username="alice")
    visitor = Client()
    answer = visitor.post(reverse("account_signup"), {"email": "not an address"})
    assert refused(answer)
    assert refused(visitor.post(reverse("account_reset_password"), {"email": LONG}))
    player = Client()
    player.force_login(alice)
    wrong = {"oldpassword": "wrong", "password1": "a new phrase 42", "password2": "other"}
    assert refused(player.post(reverse("account_change_password"), wrong))
    assert refused(player.post(reverse("account_email"), {"action_add": "", "email": "x"}))
    assert User.objects.get(pk=alice.pk).check_password(PASSWORD)


@pytest.mark.parametrize("email", ["", "not an address", LONG + "@example.com", "a\x00@x.org"])
def test_asking_for_a_sign_in_code_with_no_address_sends_nothing(email):
    UserFactory(username="alice", email="alice@example.com")
    answer = Client().post(reverse("account_request_login_code"), {"email": email})
    assert refused(answer)
    assert not mail.outbox


def test_a_wrong_sign_in_code_is_refused_and_the_code_dies_after_a_few_tries():
    UserFactory(username="alice", email="alice@example.com")
    client = Client()
    asked = client.post(reverse("account_request_login_code"), {"email": "alice@example.com"})
    assert asked.status_code == 302
    confirm = reverse("account_confirm_login_code")
    for code in ["", "WRONG-CODE"]:  # each a try spent
        answer = client.post(confirm, {"code": code})
        assert refused(answer), answer.status_code
        assert 'name="code"' in answer.text  # the same page, to try again
    # The third wrong code ends the code (allauth's ACCOUNT_LOGIN_BY_CODE_MAX_ATTEMPTS): back to
    # asking for one, told why.
    last = client.post(confirm, {"code": LONG}, follow=True)
    assert last.redirect_chain[0][0] == reverse("account_request_login_code")
    assert "Too many failed login attempts" in last.text
    assert not signed_in(client)


@pytest.mark.parametrize("password", ["", "wrong", LONG, ["a", "b"]])
def test_confirm_access_with_a_wrong_password_confirms_nothing(password):
    alice = UserFactory(username="alice")
    client = Client()
    client.force_login(alice)  # signed in long ago: allauth asks again before a change
    answer = client.post(reverse("account_reauthenticate"), {"password": password})
    assert refused(answer)
    assert 'name="password"' in answer.text
    still = client.get(reverse("mfa_activate_totp"))
    assert still.status_code == 302 and still.url.startswith(reverse("account_reauthenticate"))


def _at_the_second_step(user: User, address: str = "127.0.0.1") -> Client:
    client = Client(REMOTE_ADDR=address)
    answer = client.post(reverse("account_login"), {"login": user.username, "password": PASSWORD})
    assert answer.status_code == 302 and answer.url == reverse("mfa_authenticate")
    return client


def test_the_second_step_refuses_a_wrong_code_or_credential_and_signs_nobody_in():
    alice = UserFactory(username="alice")
    app = with_an_authenticator_app(alice)
    wrong = "000000" if app.now() != "000000" else "111111"
    odd = [{"code": code} for code in [*ODD_TEXT, wrong, "12345", "1234567"]]
    odd += [{"credential": credential} for credential in ODD_CREDENTIALS]
    for n, fields in enumerate(odd):
        # Each from an address of its own: allauth counts failures per address (below).
        client = _at_the_second_step(alice, f"198.51.100.{n}")
        answer = client.post(reverse("mfa_authenticate"), fields)
        assert refused(answer), (fields, answer.status_code)
        assert not signed_in(client)
        # Still at the second step: the right code signs in.
        if n == 0:
            answer = client.post(reverse("mfa_authenticate"), {"code": app.now()})
            assert answer.status_code == 302 and signed_in(client)


def test_too_many_wrong_codes_at_the_second_step_answer_429():
    alice = UserFactory(username="alice")
    app = with_an_authenticator_app(alice)
    client = _at_the_second_step(alice)
    wrong = "000000" if app.now() != "000000" else "111111"
    answers = [client.post(reverse("mfa_authenticate"), {"code": wrong}) for _ in range(12)]
    assert {a.status_code for a in answers} == {400, 429}
    assert refused(answers[-1], message="Too many failed login attempts")
    assert not signed_in(client)


def test_confirm_access_by_the_app_refuses_a_wrong_code():
    alice = UserFactory(username="alice")
    client = Client()
    client.force_login(alice)
    app = with_an_authenticator_app(alice)
    wrong = "000000" if app.now() != "000000" else "111111"
    for code in ["", wrong, LONG]:
        answer = client.post(reverse("mfa_reauthenticate"), {"code": code})
        assert refused(answer), (code[:20], answer.status_code)
    still = client.get(reverse("mfa_generate_recovery_codes"))
    assert still.status_code == 302 and "reauthenticate" in still.url


def test_turning_on_the_app_with_a_wrong_code_turns_nothing_on():
    alice = UserFactory(username="alice")
    client = signed_in_by_the_form(alice)
    assert client.get(reverse("mfa_activate_totp")).status_code == 200  # its secret made
    for code in [*ODD_TEXT, "000000", "abcdef"]:
        answer = client.post(reverse("mfa_activate_totp"), {"code": code})
        assert refused(answer), (code[:20], answer.status_code)
        assert 'name="code"' in answer.text
    assert not Authenticator.objects.filter(user=alice).exists()


def test_adding_a_passkey_with_no_real_credential_adds_nothing():
    alice = UserFactory(username="alice")
    client = signed_in_by_the_form(alice)
    assert client.get(reverse("mfa_add_webauthn")).status_code == 200  # its challenge made
    for credential in ODD_CREDENTIALS:
        for name in ["my phone", LONG]:
            fields = {"name": name, "credential": credential, "passwordless": "on"}
            answer = client.post(reverse("mfa_add_webauthn"), fields)
            assert refused(answer), (credential[:40], answer.status_code, answer.content[:300])
    assert not Authenticator.objects.filter(user=alice).exists()


@pytest.mark.parametrize("name", ["", "   ", "x" * 61, LONG])
def test_renaming_a_key_to_nothing_or_a_very_long_name_keeps_its_name(name):
    alice = UserFactory(username="alice")
    client = signed_in_by_the_form(alice)
    key = a_key(alice, "my phone")
    answer = client.post(reverse("mfa_edit_webauthn", args=[key.pk]), {"name": name})
    assert refused(answer)
    assert 'name="name"' in answer.text
    assert authenticators(alice) == [("webauthn", key.data)]


def test_a_key_s_name_of_sixty_characters_is_taken():
    alice = UserFactory(username="alice")
    client = signed_in_by_the_form(alice)
    key = a_key(alice, "my phone")
    answer = client.post(reverse("mfa_edit_webauthn", args=[key.pk]), {"name": "k" * 60})
    assert answer.status_code == 302
    key.refresh_from_db()
    assert key.data["name"] == "k" * 60


@pytest.mark.parametrize("credential", ODD_CREDENTIALS)
def test_signing_in_with_no_real_passkey_answers_400_on_the_sign_in_page(credential):
    UserFactory(username="alice")
    client = Client()
    answer = client.post(reverse("mfa_login_webauthn"), {"credential": credential})
    assert refused(answer), (answer.status_code, answer.content[:300])
    assert 'name="login"' in answer.text  # the sign-in page, to try again
    assert re.search(r'<p class="message error" role="alert">[^<]+</p>', answer.text)
    assert not signed_in(client)
    # The message was said once: the next page does not repeat it.
    assert 'role="alert"' not in client.get(reverse("account_login")).text


def test_signing_out_the_other_devices_needs_the_page_s_button():
    alice = UserFactory(username="alice")
    laptop = signed_in_by_the_form(alice, HTTP_USER_AGENT="laptop")
    phone = signed_in_by_the_form(alice, HTTP_USER_AGENT="phone")
    for fields in [{}, {"action": ""}, {"action": "everything"}, {"action": LONG}]:
        answer = laptop.post(reverse("usersessions_list"), fields)
        assert refused(answer, message="nothing has changed"), answer.status_code
        assert "Sign out everywhere else" in answer.text
    assert phone.get(reverse("profile_edit")).status_code == 200  # still signed in there
    answer = laptop.post(reverse("usersessions_list"), {"action": "logout"})
    assert answer.status_code == 302
    assert phone.get(reverse("profile_edit")).status_code == 302
