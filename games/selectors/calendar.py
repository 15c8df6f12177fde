"""A player's deadlines as a calendar feed (ICS, made with icalendar): one event per table
waiting for their move, at its deadline, and what the apps above add (``extensions
.calendar_events``: a tournament round's window). games/views/calendar.py serves it at the
player's secret address (accounts/calendar.py).

A fixed number of queries however many tables: the player's waiting seats with their tables in
one, and each extension its own few. An event's UID is the table's, so a calendar app moves it
when the deadline moves and drops it once the player moved (the feed no longer holds it).
"""

from __future__ import annotations

import datetime as dt
from urllib.parse import urlsplit

import icalendar
from django.conf import settings
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from accounts.models import User
from games import extensions
from games.extensions import CalendarEvent
from games.models import Seat, Table

# How often a calendar app should fetch the feed again (REFRESH-INTERVAL, X-PUBLISHED-TTL).
REFRESH = dt.timedelta(minutes=15)
# The alarm: this long before a deadline.
ALARM_BEFORE = dt.timedelta(hours=1)


def site_host() -> str:
    """The site's host name, for the events' UIDs (``table-12@cards.example``)."""
    return urlsplit(settings.SITE_URL).hostname or "localhost"


def absolute(path: str) -> str:
    return f"{settings.SITE_URL}{path}"


def table_deadline_events(user: User) -> list[CalendarEvent]:
    """One event per running table where ``user``'s seat waits with a deadline (the earliest,
    should they hold two seats at a table), in one query."""
    seats = (
        Seat.objects.filter(
            user=user,
            is_waiting=True,
            deadline__isnull=False,
            table__status=Table.Status.RUNNING,
        )
        .select_related("table")
        .order_by("deadline", "table_id")
    )
    host = site_host()
    events: dict[int, CalendarEvent] = {}
    for seat in seats:
        table = seat.table
        if table.pk in events or seat.deadline is None:
            continue
        events[table.pk] = CalendarEvent(
            uid=f"table-{table.pk}@{host}",
            summary=_("Your move: %(game)s #%(number)d")
            % {"game": table.game_name, "number": table.pk},
            at=seat.deadline,
            stamp=seat.waiting_since or table.last_move_at or table.started_at or seat.deadline,
            url=absolute(reverse("table_detail", args=[table.pk])),
            description=_("Your time to move at this table runs out then."),
        )
    return list(events.values())


def calendar_events(user: User) -> list[CalendarEvent]:
    """Every deadline of ``user``'s feed, soonest first, in the player's language."""
    with translation.override(user.language or settings.LANGUAGE_CODE):
        events = table_deadline_events(user)
        for more in extensions.calendar_events:
            events.extend(more(user))
    return sorted(events, key=lambda event: (event.at, event.uid))


def calendar_ics(*, user: User, events: list[CalendarEvent]) -> bytes:
    """The feed: a VCALENDAR with a VEVENT (and a VALARM before it) per event.

    It depends on the events alone (DTSTAMP is when the deadline was set, not now), so the same
    deadlines give the same bytes and the same ETag.
    """
    with translation.override(user.language or settings.LANGUAGE_CODE):
        name = _("Card Tables: my deadlines")
        reminder = _("Soon: %(summary)s")
    calendar = icalendar.Calendar()
    calendar.add("prodid", f"-//{site_host()}//Card Tables deadlines//EN")
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    calendar.add("x-wr-calname", name)
    calendar.add("name", name)
    calendar.add("refresh-interval", REFRESH, parameters={"VALUE": "DURATION"})
    calendar.add("x-published-ttl", REFRESH)
    for item in events:
        event = icalendar.Event()
        event.add("uid", item.uid)
        event.add("dtstamp", item.stamp.astimezone(dt.UTC))
        event.add("dtstart", item.at.astimezone(dt.UTC))
        event.add("summary", item.summary)
        event.add("url", item.url, parameters={"VALUE": "URI"})
        event.add("description", f"{item.description}\n{item.url}".strip())
        event.add("transp", "TRANSPARENT")
        alarm = icalendar.Alarm()
        alarm.add("action", "DISPLAY")
        alarm.add("trigger", -ALARM_BEFORE)
        alarm.add("description", reminder % {"summary": item.summary})
        event.add_component(alarm)
        calendar.add_component(event)
    return calendar.to_ical()
