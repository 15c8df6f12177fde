"""The rating chart's points, written by ``ratings_extras.chart_circles`` rather than a loop of
the template: the same circles, titles and dates as the loop wrote, and coordinates that SVG
reads in every language."""

from __future__ import annotations

import datetime as dt
import random
import re
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.template import Context, Template
from django.utils import timezone, translation

from games.selectors import charts

# The loop the tag replaced, with the coordinates written as the line's are (``%.1f``).
LOOP_BEFORE = (
    "{% load ratings_extras %}{% for point in series.points %}{% if point.when %}\n"
    '          <circle cx="{{ point.x|stringformat:".1f" }}" cy="{{ point.y|stringformat:".1f" }}"'
    ' r="3"><title>{{ series.name }} · {{ point.when|date:"DATE_FORMAT" }}:'
    " {{ point.value|rating }}</title></circle>\n        {% endif %}{% endfor %}"
)


def _chart(n: int = 300) -> charts.Chart:
    rng = random.Random(7)
    t0 = dt.datetime(2025, 3, 30, 23, 30, tzinfo=dt.UTC)
    value, changes = 0.0, []
    for i in range(n):
        before, value = value, value + rng.uniform(-2, 2)
        game = rng.choice(["slide", "gnav", "district-noir"])
        when = t0 + dt.timedelta(hours=7 * i)
        changes.append(
            SimpleNamespace(game=game, ordinal_before=before, ordinal_after=value, created_at=when)
        )
    return charts.rating_chart(changes, {"slide": "Slide", "gnav": "Gnav", "district-noir": "D<N"})


@pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
@pytest.mark.parametrize("zone", ["UTC", "Europe/Prague", "America/Los_Angeles"])
def test_the_points_are_what_the_templates_loop_wrote(language: str, zone: str) -> None:
    chart = _chart()
    tag, loop = (
        Template("{% load ratings_extras %}{% chart_circles series %}"),
        Template(LOOP_BEFORE),
    )
    with translation.override(language), timezone.override(zone):
        for series in chart.series:
            context = Context({"series": series})
            assert tag.render(context) == loop.render(context)


@pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
def test_the_points_coordinates_have_a_decimal_point_in_every_language(language: str) -> None:
    tag = Template("{% load ratings_extras %}{% chart_circles series %}")
    with translation.override(language):
        html = tag.render(Context({"series": _chart(20).series[0]}))
    coordinates = re.findall(r'c[xy]="([^"]*)"', html)
    assert coordinates and all(re.fullmatch(r"\d+\.\d", c) for c in coordinates), coordinates
