"""The reminder e-mail's unsubscribe link: a GET (a person, or a mail provider's link scanner)
only shows the choice; a POST (the page's button, or a mail client's one-click) decides."""

from __future__ import annotations

import datetime as dt
import re
from html import unescape

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from accounts.models import REMINDERS_OFF, User
from games.jobs import sweeps
from games.models import Seat, Table

pytestmark = pytest.mark.django_db


def _reminded(table: Table) -> tuple[User, str]:
    """The player to move gets a reminder; their unsubscribe link, as a path."""
    seat = table.seats.select_related("user").get(is_waiting=True)
    sweeps.sweep_reminders(timezone.now() + dt.timedelta(hours=2))
    assert len(mail.outbox) == 1
    link = mail.outbox[0].extra_headers["List-Unsubscribe"].strip("<>")
    return seat.user, "/" + link.split("://", 1)[1].split("/", 1)[1]


def _main(response) -> str:
    """The page's own part: the header has forms of its own (language, display)."""
    return response.content.decode().split("<main", 1)[1].split("</main>", 1)[0]


def _reminders_on(user: User) -> bool:
    return User.objects.get(pk=user.pk).reminder_delay != REMINDERS_OFF


def test_the_reminder_offers_one_click_unsubscribing_to_mail_clients(running_table):
    _reminded(running_table)
    headers = mail.outbox[0].extra_headers
    assert re.fullmatch(r"<https?://[^>]+/unsubscribe/[^/>]+/>", headers["List-Unsubscribe"])
    assert headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    message = mail.outbox[0].message()
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


def test_opening_the_link_changes_nothing_and_shows_a_button(running_table):
    user, path = _reminded(running_table)
    due = list(Seat.objects.filter(user=user).values_list("reminder_due_at", "warn_at"))
    for _ in range(2):  # a link scanner may fetch it more than once
        page = Client().get(path)
        assert page.status_code == 200
    assert _reminders_on(user)
    assert list(Seat.objects.filter(user=user).values_list("reminder_due_at", "warn_at")) == due
    html = _main(page)
    form = re.search(r'<form[^>]*method="post"[^>]*action="([^"]+)"', html)
    assert form and unescape(form.group(1)) == path
    assert re.search(r'<button[^>]*type="submit"', html)
    assert "Stop reminders" in html


def test_the_pages_button_turns_reminders_off(running_table):
    user, path = _reminded(running_table)
    client = Client(enforce_csrf_checks=True)
    html = _main(client.get(path))
    action = unescape(re.search(r'<form[^>]*method="post"[^>]*action="([^"]+)"', html).group(1))
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', html))
    response = client.post(action, fields)
    assert response.status_code == 200
    assert b"Reminders are off" in response.content
    assert not _reminders_on(user)
    assert not Seat.objects.filter(user=user, reminder_due_at__isnull=False).exists()


def test_a_mail_clients_one_click_post_turns_reminders_off_without_csrf_or_session(
    running_table,
):
    user, path = _reminded(running_table)
    response = Client(enforce_csrf_checks=True).post(
        path, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 200
    assert not _reminders_on(user)


@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize("token", ["forged", "Mg:1abcde:not-a-real-signature"])
def test_a_bad_link_is_a_4xx_with_a_message_and_changes_nothing(running_table, method, token):
    user, _ = _reminded(running_table)
    response = getattr(Client(), method)(f"/unsubscribe/{token}/")
    assert response.status_code == 400
    assert b"This link does not work" in response.content
    assert _reminders_on(user)


def test_the_link_of_a_player_who_already_stopped_them_says_so(running_table):
    _, path = _reminded(running_table)
    Client().post(path)
    page = Client().get(path)
    assert page.status_code == 200
    assert b"Reminders are off" in page.content
    assert "<button" not in _main(page)
