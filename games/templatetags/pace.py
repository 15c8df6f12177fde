"""A player's pace in words: the badge beside their name (lobby rows, a table's seats) and the
figures on their profile. Reads the rows a selector set on the seats (``seat.pace``): no query."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import template
from django.template.loader import get_template
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import ngettext, pgettext

from games.models import PlayerPace
from games.selectors.pace import pace_badge
from games.templatetags.names import and_list_html
from games.time_controls import DAY, HOUR, MINUTE

register = template.Library()

BADGE_TEMPLATE = "tables/partials/pace_badge.html"


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


def _badge(seat: Any) -> str:
    pace = getattr(seat, "pace", None)
    if pace_badge(pace) is None:
        return ""
    return get_template(BADGE_TEMPLATE).render({"pace": pace}).rstrip()


@register.simple_tag
def names_with_pace(seats: Iterable[Any]) -> SafeString:
    """The seats' names as a sentence says them ("alice, bob and carol"), each followed by its
    player's pace badge when there is one: a lobby row's players."""
    return and_list_html(
        mark_safe(f"{conditional_escape(seat.player_name)}{_badge(seat)}") for seat in seats
    )
