"""A page costs a fixed number of queries, however long the game or the lobby."""

from __future__ import annotations

import json
import random

import pytest
from django.urls import reverse

from games import services
from games.rules import get_rules
from tests.conftest import client_for, play_random_moves, user_at
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

# Session, user, then the page's own queries.
TABLE_PAGE_QUERIES = 5
LOBBY_QUERIES = 8
POLL_QUERIES = 1


@pytest.mark.parametrize("moves", [0, 40])
def test_the_table_page_costs_the_same_at_any_point_of_the_game(
    running_table, alice, moves, django_assert_max_num_queries
):
    table = play_random_moves(running_table, moves, random.Random(moves))
    client = client_for(alice)
    with django_assert_max_num_queries(TABLE_PAGE_QUERIES):
        client.get(reverse("table_detail", args=[table.pk]))


def test_an_unchanged_poll_costs_one_query(running_table, django_assert_max_num_queries):
    client = client_for(None)
    with django_assert_max_num_queries(POLL_QUERIES):
        response = client.get(
            reverse("table_detail", args=[running_table.pk]),
            {"v": running_table.version},
            HTTP_HX_REQUEST="true",
        )
    assert response.status_code == 204


@pytest.mark.parametrize("tables", [1, 30])
def test_the_lobby_costs_the_same_with_few_or_many_tables(
    alice, tables, django_assert_max_num_queries
):
    for _ in range(tables):
        host = UserFactory()
        services.table_create(user=host, game="district-noir", num_seats=2, seconds_per_move=86400)
        mine = services.table_create(
            user=alice, game="district-noir", num_seats=2, seconds_per_move=86400
        )
        services.table_join(table_id=mine.pk, user=UserFactory())
    client = client_for(alice)
    with django_assert_max_num_queries(LOBBY_QUERIES):
        response = client.get(reverse("lobby"))
    assert response.content.count(b"table-row") >= tables


# Session and user; the table locked, its seats (users with them), the last move's number;
# the table, the two clocks that stop and start, the move; whether the next player is on
# vacation; and the transaction's savepoint and its release (the test runs in a transaction).
# The new board reuses the table and seats the move just wrote.
MOVE_QUERIES = 12


def test_a_move_and_its_new_board_cost_a_fixed_number_of_queries(
    running_table, django_assert_max_num_queries
):
    table = play_random_moves(running_table, 5, random.Random(5))
    rules = get_rules(table.game)
    state = rules.from_json(table.state)
    seat = rules.active_seats(state)[0]
    client = client_for(user_at(table, seat))
    with django_assert_max_num_queries(MOVE_QUERIES):
        response = client.post(
            reverse("table_act", args=[table.pk]),
            {"action": json.dumps(rules.legal_actions(state, seat)[0]), "version": table.version},
            HTTP_HX_REQUEST="true",
        )
    assert response.status_code == 200
    assert 'id="board"' in response.content.decode()
