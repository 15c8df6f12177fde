"""Costs that must not grow: the same number of queries at move 1 and move 300, with 1 table
in the lobby or 500, with 1 rated player or 300.

The long game and the big lobby are bulk-created rows: the pages must not read the move
log, and must read the lobby a page at a time, so filler rows are as good as real ones.
"""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.models import Move, Rating, Seat, Table
from games.rules import get_rules
from games.services.tables import table_create, table_join
from tests.conftest import client_for, play_a_legal_move, user_at

pytestmark = pytest.mark.django_db

DN = get_rules("district-noir")
HTMX = {"HTTP_HX_REQUEST": "true"}


def _queries(request) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = request()
    assert response.status_code < 400, response.status_code
    return len(captured.captured_queries)


def _table_with_moves(alice: User, bob: User, moves: int) -> Table:
    """A running game whose log holds ``moves`` moves: one real, the rest filler rows."""
    table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    table_join(table_id=table.pk, user=bob)
    play_a_legal_move(table)
    Move.objects.bulk_create(
        Move(table=table, seq=seq, version=0, position=seq % 2, action={"type": "filler"})
        for seq in range(2, moves + 1)
    )
    Table.objects.filter(pk=table.pk).update(moves_played=moves)
    table.refresh_from_db()
    assert table.moves.count() == moves
    return table


def _next_action(table: Table) -> tuple[User, str]:
    state = DN.from_json(table.state)
    seat = DN.active_seats(state)[0]
    return user_at(table, seat), json.dumps(DN.legal_actions(state, seat)[0])


@pytest.fixture
def short_and_long(alice, bob, carol, make_user) -> tuple[Table, Table]:
    return _table_with_moves(alice, bob, 1), _table_with_moves(carol, make_user(), 300)


def _same_cost(request_for, short: Table, long: Table) -> None:
    assert _queries(lambda: request_for(short)) == _queries(lambda: request_for(long))


def test_the_table_page_costs_the_same_at_move_1_and_move_300(short_and_long):
    short, long = short_and_long

    def as_the_player_to_move(table: Table):
        player, _action = _next_action(table)
        return client_for(player).get(reverse("table_detail", args=[table.pk]))

    _same_cost(as_the_player_to_move, short, long)
    _same_cost(lambda t: client_for(None).get(reverse("table_detail", args=[t.pk])), short, long)


def test_the_board_fragment_and_its_json_cost_the_same_at_move_1_and_move_300(short_and_long):
    short, long = short_and_long

    def fragment(table: Table):
        player, _action = _next_action(table)
        return client_for(player).get(reverse("table_detail", args=[table.pk]), {"v": 0}, **HTMX)

    _same_cost(fragment, short, long)
    _same_cost(lambda t: client_for(None).get(reverse("table_view_json", args=[t.pk])), short, long)
    _same_cost(lambda t: client_for(None).get(reverse("table_log", args=[t.pk])), short, long)


def test_a_move_costs_the_same_at_move_1_and_move_300(short_and_long):
    short, long = short_and_long

    def play(table: Table):
        player, action = _next_action(table)
        return client_for(player).post(
            reverse("table_act", args=[table.pk]),
            {"action": action, "version": table.version},
            **HTMX,
        )

    _same_cost(play, short, long)
    assert short.moves.count() == 2 and long.moves.count() == 301


def _lobby_of(tables: int, viewer: User, others: list[User]) -> None:
    """``tables`` tables: open ones by others, running and finished ones with ``viewer``."""
    now = timezone.now()
    rows = []
    for i in range(tables):
        status = [Table.Status.OPEN, Table.Status.RUNNING, Table.Status.FINISHED][i % 3]
        rows.append(
            Table(
                game="district-noir",
                num_seats=2,
                seconds_per_move=86400,
                status=status,
                created_by=others[i % len(others)],
                invite_code=f"lobby-{viewer.pk}-{i}",
                started_at=None if status == Table.Status.OPEN else now,
                last_move_at=now if status == Table.Status.FINISHED or i % 2 else None,
                finished_at=now if status == Table.Status.FINISHED else None,
            )
        )
    Table.objects.bulk_create(rows)
    seats = []
    for i, table in enumerate(rows):
        # Running tables wait for the viewer or the other player, each seat with its clock.
        running = table.status == Table.Status.RUNNING
        waits = running and i % 2 == 1
        seats.append(
            Seat(
                table=table,
                position=0,
                user=others[i % len(others)],
                is_waiting=waits,
                deadline=now + dt.timedelta(days=1) if waits else None,
                finished_at=table.finished_at,  # as a game's end sets it on its seats
            )
        )
        if table.status != Table.Status.OPEN:
            mine = running and not waits
            seats.append(
                Seat(
                    table=table,
                    position=1,
                    user=viewer,
                    is_waiting=mine,
                    deadline=now + dt.timedelta(days=1) if mine else None,
                    finished_at=table.finished_at,
                )
            )
    Seat.objects.bulk_create(seats)


@pytest.mark.parametrize("signed_in", [True, False])
def test_the_lobby_costs_the_same_with_1_3_or_500_tables(make_user, signed_in):
    """With 3 tables every part of the lobby (mine, open, finished) has rows; 1 table leaves
    some empty, which skips their queries: never more than with 500."""
    others = [make_user() for _ in range(5)]
    counts = []
    for tables in [1, 3, 500]:
        viewer = make_user()
        _lobby_of(tables, viewer, others)
        client = client_for(viewer if signed_in else None)
        counts.append(_queries(lambda client=client: client.get(reverse("lobby"))))
    one, three, many = counts
    assert one <= three == many


def test_the_leaderboard_costs_the_same_with_1_2_or_300_rated_players(make_user):
    """With 2 players, one established and one provisional, both lists have rows."""
    url = reverse("leaderboard", args=["district-noir"])
    counts = []
    for players in [1, 2, 300]:
        Rating.objects.all().delete()
        Rating.objects.bulk_create(
            Rating(
                user=make_user(),
                game="district-noir",
                mu=25,
                sigma=3,
                ordinal=16 - i,
                games_played=0 if i % 2 else 20,
            )
            for i in range(players)
        )
        counts.append(_queries(lambda: client_for(None).get(url)))
    one, two, many = counts
    assert one <= two == many
