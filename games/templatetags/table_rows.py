"""A table in a list (the lobby, a player's page), and a waiting seat's clock, written in Python.

A row shows the table's game and number, its players (each with their pace badge where the
selector set one on the seat: the lobby's rows), whose turn it is (the viewer's, or the names
of those it waits for) and the clock that runs out first, and when it last moved. It reads only
the table's row and its prefetched seats. Times are ``<time datetime>`` elements that
static/js/clocks.js words in the viewer's language (the server's words: the viewer's time zone).

Not a template: a signed-in lobby at 100,000 players lists some 70 rows, and the template's
includes, blocktranslates and filters cost about 0.3 ms a row (``bench.years``); a row written
here costs a tenth of that. The test beside it compares the two in every language.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse
from django.utils.formats import date_format
from django.utils.html import conditional_escape, escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.timezone import localtime
from django.utils.translation import gettext

from games.models import Seat, Table
from games.templatetags.names import and_list, first_due, waiting_seats, waits_for
from games.templatetags.pace import names_with_pace

register = template.Library()


def _date(value: Any, pattern: str) -> str:
    """``value|date:pattern`` as a template writes it: in the active time zone, escaped. ISO
    8601 (``c``) is the datetime's own ``isoformat``, as Django's filter writes it, without its
    formatter (a row writes two or three)."""
    if pattern == "c":
        return localtime(value).isoformat()
    return escape(date_format(localtime(value), pattern))


@register.simple_tag
def clock(seat: Seat | None) -> SafeString:
    """A waiting seat's clock. The server writes only the deadline (in UTC, the same for every
    viewer, so the public part can be shared); static/js/table.js counts it down in the
    browser, in the viewer's own time zone and language, and says when the time is up."""
    if seat is None:
        return mark_safe("")
    if seat.deadline:
        when = gettext("move by %(when)s") % {"when": _date(seat.deadline, "j M, H:i T")}
        return mark_safe(
            f'<span class="clock"><time datetime="{_date(seat.deadline, "c")}" data-deadline>'
            f"{when}</time></span>"
        )
    if seat.paused_remaining:
        return mark_safe(f'<span class="clock paused">{gettext("on vacation")}</span>')
    return mark_safe("")


def _status(table: Table, seats: list[Seat], user: Any, waiting: bool) -> str:
    if waiting:
        clocks = "".join(clock(seat) for seat in seats if seat.user_id == user.pk)
        status = f'<strong class="badge turn">{gettext("Your turn")}</strong> {clocks}'
    elif table.is_running:
        names = escape(and_list(seat.player_name for seat in waiting_seats(seats)))
        waiting_for = gettext("Waiting for %(names)s") % {"names": names}
        status = f'<span class="waiting-for">{waiting_for}</span> {clock(first_due(seats))}'
    else:
        status = str(conditional_escape(table.get_status_display()))
    note = getattr(table, "row_note", "")
    return f"{status} {conditional_escape(note)}" if note else status


def _moved(table: Table) -> str:
    for when, words in (
        (table.last_move_at, gettext("Last move:")),
        (table.started_at, gettext("Started:")),
        (table.created_at, gettext("Opened:")),
    ):
        if when:
            return (
                f'{words} <time datetime="{_date(when, "c")}" data-since>'
                f"{_date(when, 'j M, H:i')}</time>"
            )
    return ""


def _players(table: Table, seats: list[Seat]) -> str:
    players = str(names_with_pace(seats))
    if not table.is_open:
        return players
    players += f" ({len(seats)}/{table.num_seats})"
    if table.pace_max_timeouts_per_100 is not None:
        rule = gettext("fewer than %(n)s timeouts per 100 moves") % {
            "n": table.pace_max_timeouts_per_100
        }
        players += f' <span class="pace-rule">{rule}</span>'
    return players


def _join_form(table: Table, csrf_token: Any) -> str:
    token = ""
    if csrf_token and csrf_token != "NOTPROVIDED":
        token = f'<input type="hidden" name="csrfmiddlewaretoken" value="{escape(csrf_token)}">'
    return (
        f'<form method="post" action="{reverse("table_join", args=[table.pk])}" class="inline">'
        f'{token}<button type="submit" class="small">{gettext("Join")}</button></form>'
    )


@register.simple_tag(takes_context=True)
def table_row(context: template.Context, table: Table, joinable: bool = False) -> SafeString:
    """The ``<li>`` of ``table`` for the viewer (``user`` in the context); with ``joinable``, a
    signed-in viewer gets the form that joins it."""
    user = context.get("user")
    seats = list(table.seats.all())
    waiting = bool(user) and waits_for(seats, user)
    form = ""
    if joinable and user is not None and user.is_authenticated:
        form = _join_form(table, context.get("csrf_token"))
    return mark_safe(
        f'<li class="table-row{" waiting" if waiting else ""}">'
        f'<a href="{reverse("table_detail", args=[table.pk])}" class="table-link">'
        f'<span class="game-name">{escape(table.game_name)} '
        f'<span class="table-number">#{table.pk}</span></span> '
        f'<span class="players">{_players(table, seats)}</span> '
        f'<span class="status">{_status(table, seats, user, waiting)}</span> '
        f'<span class="moved">{_moved(table)}</span></a>{form}</li>'
    )
