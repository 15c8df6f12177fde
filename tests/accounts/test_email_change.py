"""A player changes their e-mail address on allauth's page: the new one is used only once they
followed its confirmation link (#28.5); until then reminders keep going to the old one. The
account's own e-mails are no notifications: no List-Unsubscribe."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.urls import reverse

from accounts.models import User
from tests.conftest import client_for
from tests.support.mail import link_in, remind, reminders, to, turn_of

pytestmark = pytest.mark.django_db

CONFIRM = r"/accounts/confirm-email/[^/\s]+/"


def change_to(client, address: str):
    return client.post(reverse("account_email"), {"action_add": "", "email": address})


def confirm(client, address: str) -> None:
    """Follows the confirmation link of the last e-mail to ``address``: its page, its button."""
    path = link_in(to(address)[-1], CONFIRM)
    assert client.get(path).status_code == 200
    assert client.post(path).status_code == 302


@pytest.mark.parametrize("confirmed_before", [False, True], ids=["unconfirmed", "confirmed"])
def test_a_new_address_gets_reminders_once_confirmed(running_table, alice, confirmed_before):
    if confirmed_before:  # the sign-up address confirmed, or not (confirming is optional)
        EmailAddress.objects.create(user=alice, email=alice.email, primary=True, verified=True)
    client = client_for(alice)
    assert change_to(client, "alice@new.example").status_code == 302
    page = client.get(reverse("account_email")).text
    assert "alice@example.com" in page and "alice@new.example" in page
    assert User.objects.get(pk=alice.pk).email == "alice@example.com"

    turn_of(running_table, alice)
    remind()
    assert [m.to for m in reminders()] == [["alice@example.com"]]  # the old address still

    confirm(client, "alice@new.example")
    assert User.objects.get(pk=alice.pk).email == "alice@new.example"
    assert list(EmailAddress.objects.filter(user=alice).values_list("email", flat=True)) == [
        "alice@new.example"
    ]
    mail.outbox.clear()
    turn_of(running_table, alice)
    remind()
    assert [m.to for m in reminders()] == [["alice@new.example"]]


def test_a_second_change_replaces_the_first_not_the_current_address(alice):
    client = client_for(alice)
    change_to(client, "first@new.example")
    change_to(client, "second@new.example")
    addresses = EmailAddress.objects.filter(user=alice)
    assert sorted(addresses.values_list("email", flat=True)) == [
        "alice@example.com",
        "second@new.example",
    ]
    assert User.objects.get(pk=alice.pk).email == "alice@example.com"
    confirm(client, "second@new.example")
    assert User.objects.get(pk=alice.pk).email == "second@new.example"


def test_an_unconfirmed_address_is_never_made_the_players_own(alice):
    """The page offers no "make primary" for it; a hand-made post of one is refused."""
    client = client_for(alice)
    change_to(client, "alice@new.example")
    refused = client.post(
        reverse("account_email"), {"action_primary": "", "email": "alice@new.example"}
    )
    assert refused.status_code == 400 and "Confirm this address first" in refused.text
    assert User.objects.get(pk=alice.pk).email == "alice@example.com"


def test_bad_input_on_the_change_form_is_refused_with_a_reason(alice):
    client = client_for(alice)
    for bad in ("not an address", "", "alice@example.com"):
        refused = change_to(client, bad)
        assert refused.status_code == 400, bad
        assert 'class="errorlist' in refused.text or "errorlist" in refused.text, bad
    assert EmailAddress.objects.filter(user=alice, verified=False).count() <= 1
    assert User.objects.get(pk=alice.pk).email == "alice@example.com"


def test_the_accounts_own_emails_carry_no_list_unsubscribe(alice, client):
    """A confirmation, a password reset, a sign-in code: e-mails about the account, which a
    player cannot unsubscribe from."""
    signed_in = client_for(alice)
    change_to(signed_in, "alice@new.example")
    confirm(signed_in, "alice@new.example")
    client.post(reverse("account_reset_password"), {"email": "alice@new.example"})
    client.post(reverse("account_request_login_code"), {"email": "alice@new.example"})
    subjects = [message.subject for message in mail.outbox]
    assert len(mail.outbox) == 3, subjects
    for message in mail.outbox:
        headers = {name.lower() for name in message.extra_headers}
        assert "list-unsubscribe" not in headers, message.subject
        assert "List-Unsubscribe" not in message.message(), message.subject
