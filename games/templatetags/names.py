"""Lists of players' names as a sentence says them: "alice, bob and carol", in each language.

Both parts are translated: the separator (", " in all five languages) and the last link,
a pattern ("%(first)s a %(last)s" in Czech, "%(first)s és %(last)s" in Hungarian) that also
lets a language put its conjunction elsewhere. Used by the table's "Waiting for" line
and the lobby's rows.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from django import template
from django.utils.html import conditional_escape, escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import pgettext

register = template.Library()


@register.filter
def and_list(items: Iterable[Any]) -> str:
    """``["alice", "bob", "carol"]`` as "alice, bob and carol" in the active language. Plain
    text: the template escapes it (players choose their names)."""
    names = [str(item) for item in items]
    if len(names) < 2:
        return "".join(names)
    # Translators: between the names of a list, but the last two: "alice, bob and carol".
    separator = pgettext("list of names", ", ")
    # Translators: a list of names: first is all but the last, joined by the separator above.
    pattern = pgettext("list of names", "%(first)s and %(last)s")
    return pattern % {"first": separator.join(names[:-1]), "last": names[-1]}


def and_list_html(items: Iterable[Any]) -> SafeString:
    """``and_list`` of HTML parts (each escaped unless safe already): a name with its badge."""
    parts = [str(conditional_escape(item)) for item in items]
    if len(parts) < 2:
        return mark_safe("".join(parts))
    separator = escape(pgettext("list of names", ", "))
    pattern = escape(pgettext("list of names", "%(first)s and %(last)s"))
    return mark_safe(pattern % {"first": separator.join(parts[:-1]), "last": parts[-1]})


@register.filter
def waiting_seats(seats: Iterable[Any]) -> list[Any]:
    """The seats the game waits for, in seat order. Reads prefetched seats: no query."""
    return [seat for seat in seats if seat.is_waiting]


@register.filter
def first_due(seats: Iterable[Any]) -> Any:
    """Of the seats the game waits for, the one whose time runs out first (a clock paused by a
    vacation last), or None."""
    latest = dt.datetime.max.replace(tzinfo=dt.UTC)
    waiting = waiting_seats(seats)
    return min(waiting, key=lambda seat: seat.deadline or latest) if waiting else None


@register.filter
def waits_for(seats: Iterable[Any], user: Any) -> bool:
    """Whether the game waits for ``user`` (the viewer) at one of these seats."""
    return bool(user.is_authenticated) and any(s.user_id == user.pk for s in waiting_seats(seats))


@register.filter
def player_names(seats: Iterable[Any]) -> list[Any]:
    """Each seat's name, as its seat shows it ("Ada (bot)", "empty seat")."""
    return [seat.player_name for seat in seats]
