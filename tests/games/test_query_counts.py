"""A page costs a fixed number of queries, however long the game or the lobby."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from games import services
from tests.conftest import client_for, play_random_moves
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
