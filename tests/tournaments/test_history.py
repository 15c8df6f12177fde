"""A player's history (tournaments/pairing/history.py), built from the finished games."""

from __future__ import annotations

import pytest

from tournaments.pairing.history import Bye, Game, build_histories, competition_places


def test_a_history_counts_points_opponents_seats_and_byes():
    games = [
        Game.two_player(1, 1, 2, 1),
        Game.two_player(2, 3, 1, 0.5),
        Game.two_player(3, 1, 2, 0),
    ]
    histories = build_histories({1: 1500.0, 2: 1400.0, 3: 1300.0, 4: 1200.0}, games, [Bye(1, 3)])
    one = histories[1]
    assert one.points == 1.5
    assert one.met == ((2, 2), (3, 1))
    assert one.times_met(2) == 2 and one.times_met(4) == 0
    assert (one.firsts, one.seat_balance, one.last_first) == (2, 1, True)
    assert [g.versus for g in one.games] == [((2, 1.0),), ((3, 0.5),), ((2, 0.0),)]
    assert histories[3].points == 1.5 and histories[3].byes == 1
    assert histories[4].points == 0 and histories[4].games == ()


def test_places_are_counted_from_those_strictly_ahead():
    assert competition_places((1, 1, 2)) == (1, 1, 3)
    assert competition_places((4, 2, 2, 9)) == (3, 1, 1, 4)


def test_a_game_refuses_what_cannot_be():
    with pytest.raises(ValueError):
        Game(1, (1, 1), (1, 2))
    with pytest.raises(ValueError):
        Game(1, (1,), (1,))
    with pytest.raises(ValueError):
        Game.two_player(1, 1, 2, 0.7)
    with pytest.raises(ValueError):
        build_histories({1: 0.0}, [Game.two_player(1, 1, 2, 1)])
