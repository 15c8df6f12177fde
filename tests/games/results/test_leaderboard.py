"""The leaderboard lists players by rating, provisional ones apart, a page at a time."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from games.models import Rating
from games.selectors import ratings as rating_selectors
from games.selectors.ratings import PROVISIONAL_GAMES
from tests.conftest import client_for
from tests.factories import UserFactory
from tests.games.rated_games import finished_game

pytestmark = pytest.mark.django_db

URL = reverse("leaderboard", args=["district-noir"])
# Session and user, then two counts and two pages.
LEADERBOARD_QUERIES = 6


def rated(name: str, ordinal: float, games: int, game: str = "district-noir") -> Rating:
    user = UserFactory(username=name, password=None)
    return Rating.objects.create(
        user=user,
        game=game,
        mu=ordinal + 3 * 2.0,
        sigma=2.0,
        ordinal=ordinal,
        games_played=games,
        last_played=timezone.now() - dt.timedelta(days=games),
    )


def names_in(rows) -> list[str]:
    return [rating.user.username for rating in rows]


def test_players_are_ranked_by_their_rating_and_provisional_ones_listed_apart():
    rated("steady", 12.0, 30)
    rated("newcomer", 20.0, PROVISIONAL_GAMES - 1)
    rated("champion", 15.5, PROVISIONAL_GAMES)
    rated("beginner", -1.0, 1)
    rated("other-game", 50.0, 40, game="gnav")
    response = client_for(None).get(URL)
    board = response.context["board"]
    assert names_in(board.established.object_list) == ["champion", "steady"]
    assert names_in(board.provisional.object_list) == ["newcomer", "beginner"]
    html = response.content.decode()
    assert html.index("champion") < html.index("steady") < html.index("Provisional")
    assert "other-game" not in html
    assert "15.5" in html and reverse("player_profile", args=["champion"]) in html


def test_the_leaderboard_pages_through_many_players(monkeypatch):
    monkeypatch.setattr(rating_selectors, "LEADERBOARD_PAGE_SIZE", 3)
    for i in range(7):
        rated(f"p{i}", 100.0 - i, 10)
    client = client_for(None)
    second = client.get(URL, {"page": 2}).context["board"].established
    assert names_in(second.object_list) == ["p3", "p4", "p5"]
    assert second.start_index() == 4
    last = client.get(URL, {"page": 99}).context["board"].established
    assert names_in(last.object_list) == ["p6"]
    html = client.get(URL, {"page": "nonsense"}).content.decode()
    assert "Page 1 of 3" in html and "?page=2" in html


def test_a_finished_rated_game_puts_both_players_on_the_provisional_list(alice, bob):
    table = finished_game(alice, bob)
    board = client_for(None).get(URL).context["board"]
    winner = alice if table.outcome["ranks"][0] == 0 else bob
    assert not board.established.object_list
    assert names_in(board.provisional.object_list)[0] == winner.username


def test_an_unknown_game_has_no_leaderboard():
    assert client_for(None).get(reverse("leaderboard", args=["chess"])).status_code == 404


@pytest.mark.parametrize("players", [3, 120])
def test_the_leaderboard_costs_the_same_with_few_or_many_players(
    players, django_assert_max_num_queries
):
    for i in range(players):
        rated(f"p{i}", float(i), 3 + i % 5)
    client = client_for(UserFactory(password=None))
    with django_assert_max_num_queries(LEADERBOARD_QUERIES):
        response = client.get(URL)
    assert response.status_code == 200
    board = response.context["board"]
    size = rating_selectors.LEADERBOARD_PAGE_SIZE
    established = Rating.objects.filter(games_played__gte=PROVISIONAL_GAMES).count()
    assert len(board.established.object_list) == min(established, size)
    assert len(board.provisional.object_list) == min(players - established, size)
