"""What the tests of allauth's pages share: a player signed in through the form (and their
access confirmed), an authenticator app turned on, and a key's row (the pages about one key
read its name only, never its credential)."""

from __future__ import annotations

import pyotp
from allauth.mfa.models import Authenticator
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret
from django.test import Client
from django.urls import reverse

from accounts.models import User

PASSWORD = "correct horse battery staple"  # tests.factories.UserFactory's


def signed_in_by_the_form(user: User, *, confirmed: bool = True, **client_options: str) -> Client:
    """A device where ``user`` signed in with their password (a device of its own in the
    devices list), and, ``confirmed``, then gave it again on "Confirm Access", so that allauth's
    pages that change how one signs in open for a few minutes without asking."""
    client = Client(**client_options)
    answer = client.post(reverse("account_login"), {"login": user.username, "password": PASSWORD})
    assert answer.status_code == 302, answer.content[:500]
    if confirmed:
        again = client.post(reverse("account_reauthenticate"), {"password": PASSWORD})
        assert again.status_code == 302, again.content[:500]
    return client


def with_an_authenticator_app(user: User) -> pyotp.TOTP:
    """The app turned on, with its recovery codes, as allauth's activation leaves them."""
    secret = generate_totp_secret()
    TOTP.activate(user, secret)
    RecoveryCodes.activate(user)
    return pyotp.TOTP(secret)


def a_key(user: User, name: str) -> Authenticator:
    """A passkey's row, named: what the list, rename and remove pages read of it."""
    return Authenticator.objects.create(
        user=user,
        type=Authenticator.Type.WEBAUTHN,
        data={"name": name, "credential": {"clientExtensionResults": {"credProps": {"rk": True}}}},
    )


def authenticators(user: User) -> list[tuple[str, dict]]:
    """Every authenticator of ``user``: a test compares them before and after."""
    return [(a.type, a.data) for a in Authenticator.objects.filter(user=user).order_by("pk")]
