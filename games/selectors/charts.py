"""The rating-over-time chart, laid out on the server and drawn as inline SVG.

Pure geometry: the template (``accounts/rating_chart.html``) only places what
this computes, so the browser needs no chart library and no script.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

WIDTH, HEIGHT = 640, 240
LEFT, RIGHT, TOP, BOTTOM = 44, 12, 12, 28
SERIES_CLASSES = 6


class Change(Protocol):
    game: str
    ordinal_before: float
    ordinal_after: float
    created_at: dt.datetime


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    value: float
    when: dt.datetime | None


@dataclass
class Series:
    game: str
    name: str
    css_class: str
    points: list[Point] = field(default_factory=list)

    @property
    def polyline(self) -> str:
        return " ".join(f"{p.x:.1f},{p.y:.1f}" for p in self.points)

    @property
    def last(self) -> Point:
        return self.points[-1]


@dataclass(frozen=True)
class Chart:
    series: list[Series]
    y_ticks: list[tuple[float, str]]
    first_date: dt.datetime | None
    last_date: dt.datetime | None
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right_edge: int = WIDTH - RIGHT
    bottom_edge: int = HEIGHT - BOTTOM

    @property
    def empty(self) -> bool:
        return not self.series


def nice_step(span: float, ticks: int = 4) -> float:
    """A round step (1, 2 or 5 times a power of ten) that cuts ``span`` into about ``ticks``."""
    raw = max(span, 1e-9) / ticks
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def rating_chart(changes: Sequence[Change], names: dict[str, str]) -> Chart:
    """One line per game through a player's rating after each rated game, oldest first.

    The x axis counts the player's rated games (any game), so a burst of games on
    one evening stays readable; each line starts from the rating before its first game.
    """
    if not changes:
        return Chart(series=[], y_ticks=[], first_date=None, last_date=None)
    values = [c.ordinal_after for c in changes] + [c.ordinal_before for c in changes]
    step = nice_step(max(values) - min(values))
    low = math.floor(min(values) / step) * step
    high = max(math.ceil(max(values) / step) * step, low + step)
    n = len(changes)

    def x(index: int) -> float:
        return LEFT + (WIDTH - LEFT - RIGHT) * index / n

    def y(value: float) -> float:
        return TOP + (HEIGHT - TOP - BOTTOM) * (high - value) / (high - low)

    by_game: dict[str, Series] = {}
    for index, change in enumerate(changes, start=1):
        series = by_game.get(change.game)
        if series is None:
            css = f"series-{len(by_game) % SERIES_CLASSES}"
            series = Series(change.game, names.get(change.game, change.game), css)
            start = change.ordinal_before
            series.points.append(Point(x(index - 1), y(start), start, None))
            by_game[change.game] = series
        value = change.ordinal_after
        series.points.append(Point(x(index), y(value), value, change.created_at))
    count = round((high - low) / step)
    ticks = [(y(low + i * step), f"{round(low + i * step, 6):g}") for i in range(count + 1)]
    return Chart(
        series=list(by_game.values()),
        y_ticks=ticks,
        first_date=changes[0].created_at,
        last_date=changes[-1].created_at,
    )
