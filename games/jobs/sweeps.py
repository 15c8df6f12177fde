"""The periodic sweeps: timeouts, reminders, the end of vacations, the players' pace and
places.

Each selects only what is due, by index, and is safe to run twice or on two
workers at once: timeouts re-check under the table lock, reminders are unique
rows per seat, turn and kind, and e-mails are sent under a row lock.
"""

from __future__ import annotations

import datetime as dt
import logging
import time

from django.utils import timezone

from accounts.models import Vacation
from games.errors import GameError
from games.models import Reminder, Seat
from games.services.bot_moves import seat_time_out
from games.services.health import heartbeat_record
from games.services.pace import pace_refresh_changed
from games.services.places import steps_compact
from games.services.reminders import reminders_queue, reminders_send_due

logger = logging.getLogger(__name__)

BATCH = 200


def sweep_deadlines(now: dt.datetime | None = None) -> int:
    """Plays a bot move for every seat whose time ran out. Returns how many were played."""
    heartbeat_record()
    now = now or timezone.now()
    due = Seat.objects.filter(is_waiting=True, deadline__lte=now).order_by("deadline")
    played = 0
    for table_id, position in due.values_list("table_id", "position")[:BATCH]:
        try:
            played += seat_time_out(table_id=table_id, position=position, now=now) is not None
        except GameError as exc:  # e.g. the table vanished meanwhile
            logger.warning("timeout at table %s seat %s: %s", table_id, position, exc.message)
    return played


def sweep_reminders(now: dt.datetime | None = None) -> int:
    """Queues due turn reminders and warnings, then sends one e-mail per player."""
    now = now or timezone.now()
    reminders_queue(kind=Reminder.Kind.TURN, now=now)
    reminders_queue(kind=Reminder.Kind.WARNING, now=now)
    return reminders_send_due(now=now)


def sweep_vacations(now: dt.datetime | None = None) -> int:
    """Starts the clocks again for every vacation that has run out."""
    from games.services.vacations import vacation_end

    now = now or timezone.now()
    ended = Vacation.objects.filter(ended_at__isnull=True, ends_at__lte=now)
    count = 0
    for vacation in ended[:BATCH]:
        count += vacation_end(vacation_id=vacation.pk, now=now)
    return count


def sweep_pace(now: dt.datetime | None = None) -> int:
    """Counts the turns stored since the last run and writes again the pace rows that changed
    (``services.pace``); how many. Every minute: a badge is that fresh, and no page computes
    one."""
    return pace_refresh_changed(now=now)


def sweep_places() -> int:
    """Adds up the rows of the leaderboards' ladder (``services.places``); how many it took
    in. Every few minutes: a place is exact whenever it runs, only cheaper to count after."""
    return steps_compact()


PLACES_EVERY_SECONDS = 300
_last_places: list[float] = []


def sweep_places_if_due() -> int:
    """For the embedded default's loop, which runs every minute: the places every five."""
    now = time.monotonic()
    if _last_places and now - _last_places[0] < PLACES_EVERY_SECONDS:
        return 0
    _last_places[:] = [now]
    return sweep_places()
