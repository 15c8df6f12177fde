"""Template helpers for ratings, replays and fair shuffles; no game named."""

from __future__ import annotations

import datetime as dt

from django import template
from django.utils import formats, timezone
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

from games.selectors.charts import Series
from games.selectors.fairness import seed_commitment

register = template.Library()


@register.filter
def seed_sha256(seed: int | None) -> str:
    return "" if seed is None else seed_commitment(seed)


@register.filter
def rating(value: float | None) -> str:
    """A rating as shown: one decimal (the conservative ordinal, mu - 3 sigma)."""
    return "" if value is None else f"{value:.1f}"


@register.filter
def signed(value: float | None) -> str:
    """A rating change: +1.2, ±0.0, or 0.8 after a true minus sign (U+2212)."""
    if value is None:
        return ""
    shown = f"{abs(value):.1f}"
    if shown == "0.0":
        return "±0.0"
    return f"+{shown}" if value > 0 else f"\u2212{shown}"


@register.simple_tag
def chart_circles(series: Series) -> SafeString:
    """A chart line's points after its start, each a circle titled with its game, date and
    rating (``accounts/rating_chart.html``). Written here, not by a loop of the template: a chart
    has up to 300 points, and their filters were two thirds of a profile's rendering. The
    coordinates are written as the line's are (``Series.polyline``: a point, never the decimal
    comma of the reader's language, which SVG does not read); a date as the ``date`` filter
    writes it, in the reader's time zone and language."""
    name = conditional_escape(series.name)
    days: dict[dt.date, str] = {}
    parts = []
    for point in series.points:
        if not point.when:
            continue
        day = timezone.localtime(point.when).date()
        if day not in days:
            days[day] = conditional_escape(formats.date_format(day, "DATE_FORMAT"))
        parts.append(
            f'\n          <circle cx="{point.x:.1f}" cy="{point.y:.1f}" r="3"><title>{name} · '
            f"{days[day]}: {rating(point.value)}</title></circle>\n        "
        )
    return mark_safe("".join(parts))
