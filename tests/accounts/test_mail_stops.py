"""Bounces and complaints (#28.5): an operator stops e-mail to an address their mail provider
reported, by a command or in the players' admin; the player whose address it is gets no
reminder or notification e-mail (the bell still shows everything), their settings say why, and
a new address they confirm starts e-mail again. Every notification e-mail carries the one-click
unsubscribe headers."""

from __future__ import annotations

import datetime as dt
import io

import pytest
from django.core import mail
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone

from accounts.models import EmailStop, User
from community.models import Notification
from community.services.notes import sweep_note_mails
from tests.conftest import client_for
from tests.support.mail import link_in, remind, reminders, to, turn_of

pytestmark = pytest.mark.django_db

DAY = dt.timedelta(days=1)


def challenge(sender: User, receiver: User) -> None:
    """A challenge to District Noir from the receiver's challenge page: e-mailed by default."""
    fields = {
        "game": "district-noir",
        "district-noir-num_seats": "2",
        "district-noir-seconds_per_move": "86400",
    }
    sent = client_for(sender).post(reverse("challenge_new", args=[receiver.username]), fields)
    assert sent.status_code == 302


def stopped(user: User) -> str:
    """Why e-mail to the player stopped, or ""."""
    fresh = User.objects.get(pk=user.pk)
    assert bool(fresh.email_stopped_at) == bool(fresh.email_stopped_why)
    return fresh.email_stopped_why


def run(*args: str, stdin: str = "") -> str:
    out = io.StringIO()
    call_command("email_stopped", *args, stdin=io.StringIO(stdin), stdout=out)
    return out.getvalue()


def test_every_notification_email_carries_one_click_unsubscribe(running_table, alice, bob, carol):
    turn_of(running_table, alice)
    remind()
    challenge(carol, bob)
    sweep_note_mails(timezone.now() + DAY)
    (reminder,) = reminders()
    (notes,) = to(bob.email)
    for message in (reminder, notes):
        headers = message.message()
        assert (
            headers["List-Unsubscribe"].startswith("<http")
            and "/unsubscribe/" in headers["List-Unsubscribe"]
        )
        assert headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


def test_the_command_stops_each_address_named_or_read(alice, bob, carol):
    said = run("ALICE@example.com", "--why", "bounce")
    assert "alice@example.com".upper().lower() in said.lower() and "1 player" in said
    assert stopped(alice) == EmailStop.BOUNCE and not stopped(bob)

    # A provider's list, piped in: blank lines and comments skipped, an unknown address ignored.
    listing = "# suppressed\nbob@example.com\n\nnobody@example.net\n"
    said = run("-", "carol@example.com", "--why", "complaint", stdin=listing)
    assert stopped(bob) == stopped(carol) == EmailStop.COMPLAINT
    assert "nobody@example.net: no player" in said

    # Again: nothing new, the first reason and time stay.
    first = User.objects.get(pk=alice.pk).email_stopped_at
    said = run("alice@example.com", "--why", "complaint")
    assert "0 player(s)" in said
    assert stopped(alice) == EmailStop.BOUNCE
    assert User.objects.get(pk=alice.pk).email_stopped_at == first


@pytest.mark.parametrize(
    ("args", "stdin", "says"),
    [
        (["alice@example.com", "--why", "spam"], "", "invalid choice"),
        (["alice@example.com"], "", "--why"),
        (["--why", "bounce"], "", "No address given"),
        (["-", "--why", "bounce"], "\n# nothing\n", "No address given"),
        (["alice@example.com", "not-an-address", "--why", "bounce"], "", "not-an-address"),
        (["-", "--why", "bounce"], "alice@example.com\nbob at example\n", "bob at example"),
    ],
    ids=["unknown-why", "no-why", "no-address", "empty-stdin", "bad-address", "bad-line"],
)
def test_bad_input_to_the_command_changes_nothing(alice, args, stdin, says):
    with pytest.raises(CommandError, match=says):
        run(*args, stdin=stdin)
    assert not stopped(alice)


def test_the_admin_action_stops_the_selected_players_addresses(make_user, alice, bob, carol):
    admin = make_user(username="operator", is_staff=True, is_superuser=True)
    page = client_for(admin).get(reverse("admin:accounts_user_changelist"))
    assert "Stop e-mail to the selected players" in page.text
    answer = client_for(admin).post(
        reverse("admin:accounts_user_changelist"),
        {"action": "stop_email_bounced", "_selected_action": [alice.pk, bob.pk]},
        follow=True,
    )
    assert answer.status_code == 200 and "E-mail stopped for 2 players." in answer.text
    assert stopped(alice) == stopped(bob) == EmailStop.BOUNCE and not stopped(carol)
    # Nobody chosen: the admin says so, and nothing changes.
    answer = client_for(admin).post(
        reverse("admin:accounts_user_changelist"), {"action": "stop_email_bounced"}, follow=True
    )
    assert answer.status_code == 200 and not stopped(carol)


def test_a_stopped_address_gets_no_email_but_the_bell_shows_everything(running_table, bob, carol):
    alice = running_table.seats.get(position=0).user
    run(alice.email, bob.email, "--why", "bounce")
    turn_of(running_table, alice)
    turn_of(running_table, bob)
    challenge(carol, bob)
    remind()
    sweep_note_mails(timezone.now() + DAY)
    assert mail.outbox == []
    assert Notification.objects.filter(user=bob, shown=True, kind="challenge").exists()
    bell = client_for(bob).get(reverse("notifications"))
    assert "carol challenges you" in bell.text
    assert User.objects.get(pk=bob.pk).notes_unread >= 1


@pytest.mark.parametrize(
    ("why", "says"),
    [("bounce", "came back undelivered"), ("complaint", "reported as spam")],
)
def test_the_settings_say_why_and_a_new_confirmed_address_starts_email_again(
    running_table, alice, why, says
):
    run(alice.email, "--why", why)
    client = client_for(alice)
    page = client.get(reverse("play_settings")).text
    assert says in page and "alice@example.com" in page
    assert reverse("account_email") in page

    client.post(reverse("account_email"), {"action_add": "", "email": "alice@new.example"})
    assert stopped(alice) == why  # not yet: the new address is not confirmed
    (confirmation,) = to("alice@new.example")  # the account's e-mail still goes
    path = link_in(confirmation, r"/accounts/confirm-email/[^/\s]+/")
    client.post(path)
    assert not stopped(alice)
    assert "undelivered" not in client.get(reverse("play_settings")).text

    mail.outbox.clear()
    turn_of(running_table, alice)
    remind()
    assert [m.to for m in reminders()] == [["alice@new.example"]]


def test_confirming_the_stopped_address_again_starts_email_again(alice):
    """Its confirmation link reached the player: the address takes mail after all."""
    run(alice.email, "--why", "bounce")
    client = client_for(alice)
    client.get(reverse("account_email"))  # the sign-up address, unconfirmed
    client.post(reverse("account_email"), {"action_send": "", "email": alice.email})
    client.post(link_in(to(alice.email)[-1], r"/accounts/confirm-email/[^/\s]+/"))
    assert not stopped(alice)
