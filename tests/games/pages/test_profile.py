"""A player's page: ratings with a chart drawn on the server, record, running and finished games."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from types import SimpleNamespace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import formats, translation

from games.models import Rating, RatingChange
from games.selectors import charts
from tests.conftest import client_for
from tests.factories import UserFactory
from tests.games.rated_games import finished_game, start_game
from tests.support.page_queries import PROFILE_QUERIES

pytestmark = pytest.mark.django_db


def profile_url(user) -> str:
    return reverse("player_profile", args=[user.username])


def test_the_profile_shows_ratings_a_chart_and_the_record(alice, bob, carol):
    first = finished_game(alice, bob, seed=1)
    second = finished_game(alice, carol, seed=2)
    finished_game(alice, bob, seed=3, rated=False)
    start_game(alice, carol)
    response = client_for(None).get(profile_url(alice))
    assert response.status_code == 200
    html = response.content.decode()
    profile = response.context["profile"]

    rating = Rating.objects.get(user=alice)
    assert [r.pk for r in profile.ratings] == [rating.pk]
    assert f"{rating.ordinal:.1f}" in html and "provisional" in html

    main = html.split("<main")[1]
    assert main.count("<svg") == 1 and "<polyline" in main
    assert "<script" not in main, "the chart is drawn by the server, not in the browser"
    [series] = profile.chart.series
    assert len(series.points) == 3  # before the first game, then after each rated one

    [record] = profile.records
    assert record.played == 3
    assert record.wins + record.draws == sum(
        seat.rank == 0 for seat in alice.seats.filter(table__status="finished")
    )
    assert record.losses == 3 - record.wins - record.draws

    assert len(profile.running) == 1
    assert reverse("table_detail", args=[profile.running[0].pk]) in html
    finished = [t.pk for t in profile.finished.object_list]
    assert finished[-2:] == [second.pk, first.pk]  # newest first
    for table in (first, second):
        change = RatingChange.objects.get(table=table, user=alice)
        assert reverse("table_replay", args=[table.pk]) in html
        assert f"{abs(change.delta):.1f}" in html
    assert "friendly" in html


def test_finished_games_are_paginated_newest_first(alice, bob, monkeypatch):
    monkeypatch.setattr("games.selectors.ratings.PROFILE_PAGE_SIZE", 1)
    older, newer = (finished_game(alice, bob, seed=seed) for seed in range(2))
    client = client_for(None)
    first = client.get(profile_url(alice))
    assert [t.pk for t in first.context["profile"].finished.object_list] == [newer.pk]
    assert "Page 1 of 2" in first.content.decode()
    second = client.get(profile_url(alice), {"page": 2}).context["profile"].finished
    assert [t.pk for t in second.object_list] == [older.pk]


def test_an_unknown_player_has_no_page():
    assert client_for(None).get("/players/nobody-here/").status_code == 404


def test_a_new_player_page_says_there_is_nothing_yet():
    html = client_for(None).get(profile_url(UserFactory(password=None))).content.decode()
    assert "No rated game yet." in html and "<svg" not in html


@pytest.mark.parametrize("games", [1, 3])
def test_the_profile_costs_the_same_with_few_or_many_games(
    alice, bob, games, django_assert_max_num_queries
):
    for seed in range(games):
        finished_game(alice, bob, seed=seed)
    start_game(alice, bob)
    client = client_for(bob)
    with django_assert_max_num_queries(PROFILE_QUERIES):
        assert client.get(profile_url(alice)).status_code == 200


def test_the_chart_puts_every_point_inside_the_drawing():
    t0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    changes = [
        SimpleNamespace(
            game=game, ordinal_before=b, ordinal_after=a, created_at=t0 + dt.timedelta(days=i)
        )
        for i, (game, b, a) in enumerate(
            [("slide", 0, 3.4), ("gnav", 0, -1.8), ("slide", 3.4, 5.1), ("slide", 5.1, 2.0)]
        )
    ]
    chart = charts.rating_chart(changes, {"slide": "Slide", "gnav": "Gnav"})
    assert [s.name for s in chart.series] == ["Slide", "Gnav"]
    assert [p.value for p in chart.series[0].points] == [0, 3.4, 5.1, 2.0]
    for series in chart.series:
        for point in series.points:
            assert chart.left <= point.x <= chart.right_edge
            assert 0 <= point.y <= chart.bottom_edge
    values = [float(label) for _y, label in chart.y_ticks]
    assert values[0] <= -1.8 and values[-1] >= 5.1
    assert charts.rating_chart([], {}).empty


def _chart_of(html: str) -> str:
    return html.split('<figure class="rating-chart">')[1].split("</figure>")[0]


def test_the_chart_is_drawn_once_until_a_rated_game_changes_it(alice, bob):
    """The drawn chart is kept in the cache: a second view reads neither its rating changes
    nor draws it again; a new rated game, a new name, another language or time zone draws it
    anew."""
    finished_game(alice, bob, seed=1)
    client = client_for(None)
    with CaptureQueriesContext(connection) as drawn:
        first = client.get(profile_url(alice)).content.decode()
    assert _chart_of(first).count("<circle") == 1
    with CaptureQueriesContext(connection) as kept:
        again = client.get(profile_url(alice)).content.decode()
    assert _chart_of(again) == _chart_of(first)

    def chart_reads(queries: CaptureQueriesContext) -> list[str]:
        return [
            q["sql"] for q in queries if "games_ratingchange" in q["sql"] and "LIMIT" in q["sql"]
        ]

    assert len(chart_reads(drawn)) == 1 and chart_reads(kept) == []
    assert len(kept) == len(drawn) - 1

    finished_game(alice, bob, seed=2)
    after = client.get(profile_url(alice)).content.decode()
    assert _chart_of(after).count("<circle") == 2, "the new game's point is drawn"

    alice.display_name = "Alice the Bold"
    alice.save()
    renamed = client.get(profile_url(alice)).content.decode()
    assert "Alice the Bold" in _chart_of(renamed)

    czech = client_for(None)
    czech.cookies["django_language"] = "cs"
    chart_cs = _chart_of(czech.get(profile_url(alice)).content.decode())
    assert chart_cs != _chart_of(renamed)
    assert "Alice the Bold" in chart_cs and "rated game" not in chart_cs

    latest = RatingChange.objects.filter(user=alice).latest("created_at").created_at
    east, west = "Pacific/Kiritimati", "Pacific/Pago_Pago"  # 25 hours apart: other days
    for zone, other in ((east, west), (west, east)):
        viewer = UserFactory(time_zone=zone)
        shown = _chart_of(client_for(viewer).get(profile_url(alice)).content.decode())
        assert _day(latest, zone) in shown and _day(latest, other) not in shown


def _day(moment: dt.datetime, zone: str) -> str:
    with translation.override("en"):
        return formats.date_format(moment.astimezone(zoneinfo.ZoneInfo(zone)), "DATE_FORMAT")
