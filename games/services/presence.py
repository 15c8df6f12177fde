"""A player's presence at a table: while they have it open, no reminder e-mail goes out.

Every way of having a table open marks the player's seat as seen: a page load or poll
(``games.views.tables``), the table's websocket opening and its ping every 30 s
(``games.live.consumers``). The reminder sweep (``services.reminders.reminders_queue``)
holds back a notice for a seat seen within ``PRESENCE``.
"""

from __future__ import annotations

import datetime as dt

from django.db.models import Q
from django.utils import timezone

from games.models import Seat

# A player who loaded, polled or held a socket to the table this recently has it open.
PRESENCE = dt.timedelta(seconds=90)
# A seat is marked seen at most this often: its page polls far more often than that.
PRESENCE_REFRESH = dt.timedelta(seconds=20)


def seat_present(*, seat: Seat, now: dt.datetime) -> bool:
    """Whether the seat's player has the table open: seen within ``PRESENCE``."""
    return seat.seen_at is not None and seat.seen_at >= now - PRESENCE


def seat_presence_touch(*, table_id: int, user_id: int, now: dt.datetime | None = None) -> int:
    """Marks the player's seat at this table as seen now, unless it was within
    ``PRESENCE_REFRESH``; 1 if the row was written (0: seen just now, or not seated here)."""
    now = now or timezone.now()
    return (
        Seat.objects.filter(table_id=table_id, user_id=user_id)
        .filter(Q(seen_at__isnull=True) | Q(seen_at__lt=now - PRESENCE_REFRESH))
        .update(seen_at=now)
    )
