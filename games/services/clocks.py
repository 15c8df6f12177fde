"""Each waiting seat's own clock, and when its reminder and warning fall due.

These functions only set fields on a ``Seat``; the caller saves it. Times are
stored precomputed (``deadline``, ``reminder_due_at``, ``warn_at``) so the sweeps
select what is due by index and never scan the tables.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings

from accounts.mailing import address_mailable
from accounts.models import ReminderCadence, User
from games.models import Seat, Table

# The "time is nearly up" warning goes out when this share of the time is left.
WARNING_SHARE = 5
# The "escalating" cadence: when half the time per move is left, a fifth, and this long.
ESCALATING_LAST = dt.timedelta(hours=1)
# Its notices per turn, at most: one at each of those three points.
ESCALATING_STEPS = 3


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


def _out_of_quiet(user: User, at: dt.datetime) -> dt.datetime:
    """``at``, or the end of the player's quiet hours it falls in (the sweep's rule too)."""
    return (user.quiet_until(at) or at).astimezone(dt.UTC)


def _digest_from(user: User, moment: dt.datetime) -> dt.datetime:
    """The first daily digest hour, in the player's time zone, strictly after ``moment``."""
    zone = user.zone
    day = moment.astimezone(zone).date()
    for _ in range(3):  # today's hour, else tomorrow's (a day with a clock change: the next)
        at = dt.datetime.combine(day, dt.time(user.reminder_hour), tzinfo=zone).astimezone(dt.UTC)
        if at > moment:
            return at
        day += dt.timedelta(days=1)
    raise AssertionError("a digest hour comes every day")  # pragma: no cover


def reminder_not_before(*, user: User, last_sent: dt.datetime | None) -> dt.datetime | None:
    """The earliest the player may get their next reminder e-mail, given their last one (of
    any table): N hours later for "every N hours", their next day for "daily", else None."""
    if last_sent is None:
        return None
    if user.reminder_cadence == ReminderCadence.EVERY:
        return last_sent + dt.timedelta(hours=user.reminder_every_hours)
    if user.reminder_cadence == ReminderCadence.DAILY:
        day = last_sent.astimezone(user.zone).date() + dt.timedelta(days=1)
        return dt.datetime.combine(day, dt.time(0), tzinfo=user.zone).astimezone(dt.UTC)
    return None


def reminder_due_next(
    *,
    user: User,
    turn_start: dt.datetime,
    deadline: dt.datetime | None,
    budget: dt.timedelta,
    after: dt.datetime | None = None,
    last_sent: dt.datetime | None = None,
) -> dt.datetime | None:
    """When the next "your turn" e-mail for one waiting turn falls due under the player's
    cadence, or None: no more for this turn. Pure: it reads nothing but its arguments.

    ``turn_start``: when the turn's clock (re)started; ``deadline`` and ``budget`` (the time per
    move): its end and its length; ``after``: when this turn's last notice went (None: none
    yet); ``last_sent``: the player's last reminder e-mail, of any table. A time in the
    player's quiet hours moves to their end; the ones after the deadline are dropped (but
    "delay" keeps today's rule: one notice, ``reminder_delay`` minutes after the start).
    """
    cadence = user.reminder_cadence
    if cadence == ReminderCadence.DELAY:
        if after is not None:
            return None
        return _out_of_quiet(user, turn_start + dt.timedelta(minutes=user.reminder_delay))
    if deadline is None:
        return None  # a clock that stands: nothing is due
    floor = reminder_not_before(user=user, last_sent=last_sent)
    due: dt.datetime | None = None
    if cadence == ReminderCadence.EVERY:
        every = dt.timedelta(hours=user.reminder_every_hours)
        due = turn_start + every
        if after is not None and due <= after:
            due += every * ((after - due) // every + 1)
        due = _out_of_quiet(user, max(due, floor) if floor else due)
    elif cadence == ReminderCadence.DAILY:
        base = after or turn_start
        for _ in range(4):
            due = _out_of_quiet(user, _digest_from(user, base))
            if floor is None or due >= floor:
                break
            base = due
    else:  # escalating: half the time left, a fifth left, an hour left
        points = sorted(
            {deadline - budget / 2, deadline - budget / WARNING_SHARE, deadline - ESCALATING_LAST}
        )
        due = next((p for p in points if p > (after or turn_start)), None)
        due = _out_of_quiet(user, due) if due else None
    return due if due is not None and due < deadline else None


def _notices(seat: Seat, table: Table, now: dt.datetime) -> None:
    """Schedules the turn reminder and the warning for a running clock."""
    user = seat.user
    if seat.is_bot or user is None or not (user.wants_reminders and address_mailable(user)):
        seat.reminder_due_at = seat.warn_at = None
        return
    seat.reminder_due_at = reminder_due_next(
        user=user, turn_start=now, deadline=seat.deadline, budget=_budget(table)
    )
    if user.reminder_cadence != ReminderCadence.DELAY:
        seat.warn_at = None  # only "delay" adds a warning: the others chose their own times
        return
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
    """After a player changed their reminder settings: due from when the turn began."""
    if not seat.is_waiting or seat.deadline is None:
        return
    _notices(seat, table, seat.waiting_since or now)
