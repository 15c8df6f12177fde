"""Long lists read a page at a time from their indexes (bench/years: years of data): the
leaderboard at any depth, a player's history of finished games, their record and their tables
in the lobby show what they showed before, a moderator's disabled players still left out."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.utils import timezone

from games.models import Rating, Seat, Table
from games.rules import get_rules
from games.selectors import ratings as rating_selectors
from games.selectors.ratings import PROVISIONAL_GAMES, leaderboard_for, profile_for
from games.selectors.tables import lobby_for
from games.services.records import records_add
from games.services.tables import table_abort, table_create
from tests.factories import UserFactory
from tests.games.rated_games import finished_game, play_to_the_end, start_game

pytestmark = pytest.mark.django_db

DN = get_rules("district-noir")


def rated(name: str, ordinal: float, games: int, *, active: bool = True) -> Rating:
    user = UserFactory(username=name, password=None, is_active=active)
    return Rating.objects.create(
        user=user,
        game="district-noir",
        mu=ordinal + 6,
        sigma=2.0,
        ordinal=ordinal,
        games_played=games,
    )


def names(page) -> list[str]:
    return [rating.user.username for rating in page.object_list]


def test_a_disabled_player_is_left_out_of_the_list_and_of_its_count():
    rated("first", 30.0, 10)
    rated("banned", 20.0, 10, active=False)
    rated("second", 10.0, 10)
    rated("newcomer", 40.0, 1)
    rated("banned-newcomer", 35.0, 1, active=False)
    board = leaderboard_for(DN)
    assert names(board.established) == ["first", "second"]
    assert board.established.paginator.count == 2
    assert names(board.provisional) == ["newcomer"]
    assert board.provisional.paginator.count == 1


def test_a_deep_page_lists_the_players_of_its_places_in_order(monkeypatch):
    monkeypatch.setattr(rating_selectors, "LEADERBOARD_PAGE_SIZE", 2)
    rated("a", 50.0, 9)
    rated("b", 40.0, 6)
    rated("c", 40.0, 8)  # the same rating: more games first
    rated("d", 30.0, PROVISIONAL_GAMES)
    rated("e", 20.0, 7)
    board = leaderboard_for(DN, page=2)
    assert names(board.established) == ["b", "d"]
    assert board.established.start_index() == 3
    assert names(leaderboard_for(DN, page=1).established) == ["a", "c"]
    assert names(leaderboard_for(DN, page=3).established) == ["e"]
    assert names(leaderboard_for(DN, page=99).established) == ["e"]


def _finished_table(players, ranks: list[int], finished_at: dt.datetime) -> Table:
    table = Table.objects.create(
        game="district-noir",
        num_seats=len(players),
        seconds_per_move=86400,
        created_by=players[0],
        status=Table.Status.FINISHED,
        seed=1,
        outcome={"ranks": ranks, "scores": [0] * len(ranks), "reason": "score"},
        finished_at=finished_at,
    )
    seats = [
        # The place and the end, as a game's end sets them on its seats.
        Seat.objects.create(
            table=table, position=position, user=user, rank=rank, finished_at=finished_at
        )
        for position, (user, rank) in enumerate(zip(players, ranks, strict=True))
    ]
    records_add(table=table, seats=seats)  # and counts it in its players' records
    return table


def test_the_record_tells_wins_draws_and_losses_apart(alice, bob, carol):
    now = timezone.now()
    _finished_table([alice, bob], [0, 1], now)
    _finished_table([alice, bob], [0, 0], now)
    _finished_table([alice, carol], [1, 0], now)
    _finished_table([carol, alice], [0, 0], now)
    [record] = profile_for(alice).records
    assert (record.wins, record.draws, record.losses) == (1, 2, 1)
    [record] = profile_for(carol).records
    assert (record.wins, record.draws, record.losses) == (1, 1, 0)


def test_a_history_pages_newest_first_and_the_lobby_shows_the_latest(alice, bob, monkeypatch):
    monkeypatch.setattr(rating_selectors, "PROFILE_PAGE_SIZE", 3)
    start = timezone.now() - dt.timedelta(days=30)
    # Finished in another order than they were made: the page follows the ends.
    ends = [5, 1, 4, 2, 3, 7, 6]
    tables = [_finished_table([alice, bob], [0, 1], start + dt.timedelta(days=d)) for d in ends]
    by_end = [t.pk for _end, t in sorted(zip(ends, tables, strict=True), reverse=True)]
    pages = [profile_for(alice, page=n).finished for n in (1, 2, 3)]
    assert [[t.pk for t in page.object_list] for page in pages] == [
        by_end[:3],
        by_end[3:6],
        by_end[6:],
    ]
    assert pages[0].paginator.count == len(tables)
    lobby = lobby_for(alice)
    assert [t.pk for t in lobby.finished_tables] == by_end


def test_a_seat_has_a_place_once_its_game_ended_and_never_before(alice, bob):
    """What ``selectors.tables.UNFINISHED`` relies on to find a player's tables in play."""
    running = start_game(alice, bob)
    assert list(running.seats.values_list("rank", flat=True)) == [None, None]
    assert [t.pk for t in profile_for(alice).running] == [running.pk]
    assert running.pk in {t.pk for t in lobby_for(alice).my_tables}
    finished = finished_game(alice, bob, seed=3)
    assert None not in finished.seats.values_list("rank", flat=True)
    assert finished.pk not in {t.pk for t in lobby_for(alice).my_tables}


@pytest.mark.parametrize("game", ["district-noir", "slide", "gnav", "point-city"])
def test_a_game_that_ends_gives_its_seats_its_end_and_its_history_lists_it(game, make_user):
    """What the history and the lobby's latest rely on (the index ``seat_user_finished``): every
    seat of a finished game carries the table's end, set as the game ends, and no other does."""
    players = [make_user() for _ in range(4 if game == "gnav" else 2)]
    running = start_game(*players, game=game)
    opened = table_create(
        user=players[0], game=game, num_seats=len(players), seconds_per_move=86400
    )
    aborted = table_abort(table_id=opened.pk, user=players[0])
    assert aborted.finished_at is not None  # an aborted table has an end, but no game ended
    ended = play_to_the_end(start_game(*players, game=game), random.Random(5))
    assert ended.status == Table.Status.FINISHED
    assert set(ended.seats.values_list("finished_at", flat=True)) == {ended.finished_at}
    assert set(running.seats.values_list("finished_at", flat=True)) == {None}
    assert set(aborted.seats.values_list("finished_at", flat=True)) == {None}
    for player in players:
        history = profile_for(player).finished
        assert [t.pk for t in history.object_list] == [ended.pk]
        assert history.paginator.count == 1
        assert [t.pk for t in lobby_for(player).finished_tables] == [ended.pk]
