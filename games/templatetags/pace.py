"""A player's pace in words: the badge beside their name (lobby rows, a table's seats) and the
figures on their profile. Reads the rows a selector set on the seats (``seat.pace``): no query.

The badge is written here, not by a template: a lobby of 50 tables shows some 150 of them, and
a template's blocktranslate with its five filters cost about 0.4 ms each (most of the visitor's
lobby at 100,000 players)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from django import template
from django.template.defaultfilters import floatformat
from django.utils.formats import localize
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, ngettext, pgettext

from games.models import PlayerPace
from games.selectors.pace import QUICK, SLOW, pace_badge
from games.templatetags.names import and_list_html
from games.time_controls import DAY, HOUR, MINUTE

register = template.Library()


@register.filter
def pace_kind(pace: PlayerPace | None) -> str:
    """ "quick", "steady", "slow", or "" for too few moves to tell."""
    return pace_badge(pace) or ""


@register.filter
def duration_words(seconds: float | None) -> str:
    """A median time to move as a player reads it: "40 seconds", "3 hours", "2 days"."""
    if seconds is None:
        return pgettext("median time to move", "none")
    if seconds < MINUTE:
        n = round(seconds)
        return ngettext("%(n)d second", "%(n)d seconds", n) % {"n": n}
    if seconds < HOUR:
        n = round(seconds / MINUTE)
        return ngettext("%(n)d minute", "%(n)d minutes", n) % {"n": n}
    if seconds < 2 * DAY:
        n = round(seconds / HOUR)
        return ngettext("%(n)d hour", "%(n)d hours", n) % {"n": n}
    n = round(seconds / DAY)
    return ngettext("%(n)d day", "%(n)d days", n) % {"n": n}


@register.filter
def percent(share: float | None) -> str:
    """A share (0..1) as a whole percentage, "85%"; "" for none."""
    if share is None:
        return ""
    return pgettext("a percentage", "%(number)d%%") % {"number": round(share * 100)}


def _label(kind: str) -> str:
    if kind == QUICK:
        return pgettext("pace", "quick")
    if kind == SLOW:
        return pgettext("pace", "slow")
    return pgettext("pace", "steady")


def _in_words(value: Any) -> str:
    """A value as a template puts it in a sentence: localized, then escaped."""
    return str(conditional_escape(str(localize(value))))


@register.simple_tag
def pace_badge_html(pace: PlayerPace | None) -> SafeString:
    """The badge, " <span ...>quick</span>", with the figures in words in its title; "" for too
    few moves to tell (``pace_badge``)."""
    kind = pace_badge(pace)
    if kind is None or pace is None:
        return mark_safe("")
    return _badge_words(
        get_language(),
        kind,
        pace.median_seconds,
        pace.within_delay_share,
        pace.timeouts_per_100,
        pace.abandoned,
    )


@lru_cache(maxsize=4096)
def _badge_words(
    language: str | None,
    kind: str,
    median_seconds: float | None,
    within_delay_share: float | None,
    timeouts_per_100: float,
    abandoned: int,
) -> SafeString:
    """The badge of these figures in ``language`` (the active one): a lobby shows a player's
    badge at each of their tables, and most players' figures stay the same for an hour."""
    label = _label(kind)
    words = ngettext(
        "Pace: %(label)s. Over the last 90 days: a median of %(median)s to move, %(share)s of"
        " moves within the reminder delay, %(timeouts)s timeouts per 100 moves, %(abandoned)s"
        " game abandoned.",
        "Pace: %(label)s. Over the last 90 days: a median of %(median)s to move, %(share)s of"
        " moves within the reminder delay, %(timeouts)s timeouts per 100 moves, %(abandoned)s"
        " games abandoned.",
        abandoned,
    ) % {
        "label": _in_words(label),
        "median": _in_words(duration_words(median_seconds)),
        "share": _in_words(percent(within_delay_share)),
        "timeouts": _in_words(floatformat(timeouts_per_100, 1)),
        "abandoned": _in_words(abandoned),
    }
    return mark_safe(
        f' <span class="badge pace pace-{kind}" role="img" title="{words}"'
        f' aria-label="{words}">{conditional_escape(label)}</span>'
    )


def _badge(seat: Any) -> str:
    return pace_badge_html(getattr(seat, "pace", None))


@register.simple_tag
def names_with_pace(seats: Iterable[Any]) -> SafeString:
    """The seats' names as a sentence says them ("alice, bob and carol"), each followed by its
    player's pace badge when there is one: a lobby row's players."""
    return and_list_html(
        mark_safe(f"{conditional_escape(seat.player_name)}{_badge(seat)}") for seat in seats
    )
