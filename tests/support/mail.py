"""The e-mails a player gets, as the tests of several modules read them."""

from __future__ import annotations

import datetime as dt
import re

from django.core import mail
from django.core.mail import EmailMessage
from django.utils import timezone

from accounts.models import User
from games.jobs import sweeps
from games.models import Table
from games.rules import get_rules
from games.services.moves import move_play

LATER = dt.timedelta(hours=2)  # past the default reminder delay (an hour)


def to(address: str) -> list[EmailMessage]:
    return [message for message in mail.outbox if message.to == [address]]


def reminders() -> list[EmailMessage]:
    """The turn reminders sent so far (the e-mail that links the play settings)."""
    return [m for m in mail.outbox if "/settings/play/" in m.body]


def turn_of(table: Table, user: User) -> None:
    """Plays the legal moves (each player's first) until the game waits for ``user`` in a
    new turn of theirs."""
    rules = get_rules(table.game)
    seat = table.seats.get(user=user)
    turn = seat.turn if not seat.is_waiting else seat.turn + 1
    for _ in range(20):
        seat.refresh_from_db()
        if seat.is_waiting and seat.turn >= turn:
            return
        table.refresh_from_db()
        state = rules.from_json(table.state or {})
        position = rules.active_seats(state)[0]
        mover = table.seats.get(position=position).user
        assert mover is not None
        move_play(
            table_id=table.pk,
            user=mover,
            action=rules.legal_actions(state, position)[0],
            version=table.version,
        )
    raise AssertionError(f"the game never came to {user}")


def remind() -> None:
    """The reminder sweep, once the reminders of the turns begun now are due."""
    sweeps.sweep_reminders(timezone.now() + LATER)


def link_in(message: EmailMessage, pattern: str) -> str:
    """The path of the first link in the e-mail's text that matches ``pattern``."""
    found = re.search(rf"https?://[^/\s]+({pattern})", str(message.body))
    assert found, message.body
    return found.group(1)
