"""The browser tests' tables: a turn to wait for comes, even at a game that can leave the
waiting player out (found in CI: a Gnav seat lost its three lives before its turn, and the
helper chose a move from no seat at all)."""

from __future__ import annotations

import random

import pytest

from games.rules import get_rules
from games.services.moves import move_play
from tests.conftest import user_at
from tests.e2e.tables import a_table, until_turn_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def a_gnav_table_where_the_first_seat_is_out(players, rng):
    """Random moves at fresh tables until seat 0 has no lives left while the match goes on."""
    rules = get_rules("gnav")
    for _ in range(20):
        table = a_table("gnav", players)
        for _move in range(2000):
            state = rules.from_json(table.state)
            if rules.outcome(state) is not None:
                break
            if state.lives[0] == 0:
                return table
            seat = rules.active_seats(state)[0]
            move_play(
                table_id=table.pk,
                user=user_at(table, seat),
                action=rng.choice(rules.legal_actions(state, seat)),
                version=table.version,
            )
            table.refresh_from_db()
    raise AssertionError("seat 0 was never out in twenty matches")


def test_a_seat_out_of_the_match_gets_its_turn_at_a_table_like_it():
    players = [UserFactory() for _ in range(4)]
    rng = random.Random(4)
    out = a_gnav_table_where_the_first_seat_is_out(players, rng)

    waiting = until_turn_of(out, players[0], rng)

    rules = get_rules("gnav")
    state = rules.from_json(waiting.state)
    assert waiting.pk != out.pk
    assert waiting.is_running
    assert waiting.seats.get(user=players[0]).position in rules.active_seats(state)
    assert [seat.user for seat in waiting.seats.order_by("position")] == players
    assert (waiting.game, waiting.options, waiting.seconds_per_move) == (
        out.game,
        out.options,
        out.seconds_per_move,
    )
