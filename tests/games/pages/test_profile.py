"""A player's page: ratings with a chart drawn on the server, record, running and finished games."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

import pytest
from django.urls import reverse

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
