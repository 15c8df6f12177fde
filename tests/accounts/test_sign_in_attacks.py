"""No lockout by strangers (#28.1), with the production sign-in limits on (django-axes and
allauth's): a stranger who knows a player's name and fails again and again, from many addresses,
slows their own addresses and never stops the player signing in from theirs, with the password
or with a one-time code mailed to them."""

from __future__ import annotations

import re

import pytest
from axes.utils import reset
from django.core import mail
from django.test import Client, override_settings
from django.urls import reverse

from tests.conftest import forget_boards
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery staple"  # tests.factories.UserFactory's
HOME = "203.0.113.7"  # the player's own address
TOO_MANY = "Too many"


@pytest.fixture(autouse=True)
def counts_from_zero():
    """Both counters live in the cache and axes's table: each test starts from none."""
    forget_boards()
    reset()
    with override_settings(AXES_ENABLED=True):
        yield
    reset()
    forget_boards()


def sign_in(login: str, password: str, address: str):
    return Client(REMOTE_ADDR=address).post(
        reverse("account_login"), {"login": login, "password": password}
    )


def test_failures_from_many_addresses_never_stop_the_player_from_their_own():
    UserFactory(username="victim")
    strangers = [f"198.51.100.{n}" for n in range(1, 9)]
    for address in strangers:  # 6 failures from each of 8 addresses: 48 in a minute
        for attempt in range(6):
            answer = sign_in("victim", f"guess {attempt}", address)
            assert answer.status_code in (400, 429)  # the form and its error, or stopped
    # Each stranger's address is stopped for that name, even with the right password now.
    stopped = sign_in("victim", PASSWORD, strangers[0])
    assert stopped.status_code == 429 and TOO_MANY in stopped.text

    mine = sign_in("Victim", PASSWORD, HOME)
    assert mine.status_code == 302 and mine.url == reverse("lobby")


def test_the_address_that_fails_is_slowed_whatever_names_it_tries():
    UserFactory(username="neighbour")
    attacker = "198.51.100.66"
    answers = [sign_in(f"name{n}", "guess", attacker) for n in range(10)]
    assert all(a.status_code == 400 and TOO_MANY not in a.text for a in answers)
    slowed = sign_in("name10", "guess", attacker)
    assert slowed.status_code == 429 and TOO_MANY in slowed.text  # the form says so
    # Even a right password waits while that address is slowed; other addresses do not.
    assert TOO_MANY in sign_in("neighbour", PASSWORD, attacker).text
    assert sign_in("neighbour", PASSWORD, HOME).status_code == 302


def test_a_player_whose_name_is_attacked_signs_in_by_a_code_mailed_to_them():
    UserFactory(username="victim", email="victim@example.com")
    for n in range(12):
        sign_in("victim", f"guess {n}", f"198.51.100.{n}")
    player = Client(REMOTE_ADDR=HOME)
    page = player.get(reverse("account_login")).content.decode()
    assert reverse("account_request_login_code") in page  # offered on the sign-in page

    asked = player.post(reverse("account_request_login_code"), {"email": "victim@example.com"})
    assert asked.status_code == 302 and asked.url == reverse("account_confirm_login_code")
    (message,) = mail.outbox
    assert message.to == ["victim@example.com"]
    code = re.search(r"^\s*([A-Z0-9]{4}-[A-Z0-9]{4})\s*$", message.body, re.M)
    assert code is not None, message.body
    confirmed = player.post(reverse("account_confirm_login_code"), {"code": code.group(1)})
    assert confirmed.status_code == 302 and confirmed.url == reverse("lobby")
    assert player.get(reverse("lobby")).context["user"].username == "victim"
