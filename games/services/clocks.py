"""Each waiting seat's own clock, and when its reminder and warning fall due.

These functions only set fields on a ``Seat``; the caller saves it. Times are
stored precomputed (``deadline``, ``reminder_due_at``, ``warn_at``) so the sweeps
select what is due by index and never scan the tables.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings

from accounts.mailing import address_mailable
from games.models import Seat, Table

# The "time is nearly up" warning goes out when this share of the time is left.
WARNING_SHARE = 5


def bot_rescue() -> dt.timedelta:
    """A bot seat's deadline: a bot moves within seconds; if its queued turn was lost (a broker
    that failed or came back empty, a worker killed), the deadline sweep plays it then."""
    return dt.timedelta(seconds=settings.BOT_RESCUE_SECONDS)


CLOCK_FIELDS = [
    "is_waiting",
    "waiting_since",
    "turn",
    "deadline",
    "paused_remaining",
    "reminder_due_at",
    "warn_at",
]


def _budget(table: Table) -> dt.timedelta:
    return dt.timedelta(seconds=table.seconds_per_move)


def _notices(seat: Seat, table: Table, now: dt.datetime) -> None:
    """Schedules the turn reminder and the warning for a running clock."""
    user = seat.user
    if seat.is_bot or user is None or not (user.wants_reminders and address_mailable(user)):
        seat.reminder_due_at = seat.warn_at = None
        return
    seat.reminder_due_at = now + dt.timedelta(minutes=user.reminder_delay)
    deadline = seat.deadline
    warn = deadline - _budget(table) / WARNING_SHARE if deadline else None
    seat.warn_at = max(warn, now) if warn and deadline and warn < deadline else None


def seat_turn_start(*, seat: Seat, table: Table, now: dt.datetime, on_vacation: bool) -> None:
    """The game now waits for ``seat``: its clock starts, or stands if its player is away."""
    seat.is_waiting = True
    seat.turn += 1
    seat.waiting_since = now
    if on_vacation and not table.is_live:
        seat.deadline = None
        seat.paused_remaining = _budget(table)
        seat.reminder_due_at = seat.warn_at = None
        return
    seat.deadline = now + (min(_budget(table), bot_rescue()) if seat.is_bot else _budget(table))
    seat.paused_remaining = None
    _notices(seat, table, now)


def seat_turn_stop(*, seat: Seat) -> None:
    seat.is_waiting = False
    seat.waiting_since = seat.deadline = seat.paused_remaining = None
    seat.reminder_due_at = seat.warn_at = None


def seat_clock_pause(*, seat: Seat, table: Table, now: dt.datetime) -> None:
    """Stops a running clock, keeping the time it had left."""
    if not seat.is_waiting or seat.deadline is None or table.is_live:
        return
    seat.paused_remaining = max(seat.deadline - now, dt.timedelta(0))
    seat.deadline = None
    seat.reminder_due_at = seat.warn_at = None


def seat_clock_resume(*, seat: Seat, table: Table, now: dt.datetime) -> None:
    """Starts a paused clock again with the time it had left."""
    if not seat.is_waiting or seat.deadline is not None or seat.paused_remaining is None:
        return
    seat.deadline = now + seat.paused_remaining
    seat.paused_remaining = None
    _notices(seat, table, now)


def seat_reminder_reschedule(*, seat: Seat, table: Table, now: dt.datetime) -> None:
    """After a player changed their reminder delay: due from when the turn began."""
    if not seat.is_waiting or seat.deadline is None:
        return
    _notices(seat, table, seat.waiting_since or now)
