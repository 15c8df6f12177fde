"""A page costs a fixed number of queries, however long the game or the lobby."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.models import Table
from games.rules import get_rules
from games.services.events import table_events
from games.services.moves import move_play
from games.services.tables import table_create, table_join, table_rematch
from tests.conftest import client_for, play_random_moves, user_at
from tests.factories import UserFactory
from tests.games.rated_games import finished_game
from tests.support.page_queries import LOBBY_QUERIES, TABLE_PAGE_QUERIES

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def the_move_alone():
    """A move's own queries: the notifications of its turn and a tournament's count of its end
    are tasks of their own (a worker's, ``community.jobs`` and ``tournaments.jobs``; inline in
    tests), counted in tests/community/test_notes.py and tests/tournaments/."""
    from community.jobs import on_table_events
    from tournaments import jobs as tournament_jobs

    table_events.disconnect(dispatch_uid="community-notes")
    table_events.disconnect(dispatch_uid="tournament-results")
    yield
    table_events.connect(on_table_events, dispatch_uid="community-notes")
    table_events.connect(tournament_jobs.on_table_events, dispatch_uid="tournament-results")


POLL_QUERIES = 1


@pytest.mark.parametrize("moves", [0, 40])
def test_the_table_page_costs_the_same_at_any_point_of_the_game(
    running_table, alice, moves, django_assert_max_num_queries
):
    table = play_random_moves(running_table, moves, random.Random(moves))
    client = client_for(alice)
    with django_assert_max_num_queries(TABLE_PAGE_QUERIES):
        client.get(reverse("table_detail", args=[table.pk]))


# A finished table's page also reads its next table (a rematch), when there is one.
FINISHED_TABLE_PAGE_QUERIES = TABLE_PAGE_QUERIES + 1


@pytest.mark.parametrize("rematch", [False, True])
@pytest.mark.parametrize("viewer", ["player", "spectator", "visitor"])
def test_a_finished_table_page_costs_the_same_with_or_without_a_rematch(
    alice, bob, carol, viewer, rematch, django_assert_max_num_queries
):
    table = finished_game(alice, bob, seed=1)
    if rematch:
        table_rematch(table_id=table.pk, user=bob)
    client = client_for({"player": alice, "spectator": carol, "visitor": None}[viewer])
    with django_assert_max_num_queries(FINISHED_TABLE_PAGE_QUERIES):
        response = client.get(reverse("table_detail", args=[table.pk]))
    assert "Watch the replay" in response.text
    assert (
        "rematch: the same game" in response.text or "Go to the rematch" in response.text
    ) is rematch


def test_an_unchanged_poll_costs_one_query(running_table, django_assert_max_num_queries):
    client = client_for(None)
    with django_assert_max_num_queries(POLL_QUERIES):
        response = client.get(
            reverse("table_detail", args=[running_table.pk]),
            {"v": running_table.version},
            HTTP_HX_REQUEST="true",
        )
    assert response.status_code == 204


def test_a_signed_in_players_unchanged_poll_costs_one_query(
    running_table, alice, django_assert_max_num_queries
):
    """The commonest request of all: its session, the player's time zone and language and
    their presence come from the cache (the presence row is written every 20 s at most), so
    it reads the table's version and nothing else."""
    client = client_for(alice)
    url = reverse("table_detail", args=[running_table.pk])
    client.get(url, {"v": running_table.version}, HTTP_HX_REQUEST="true")  # fills the caches
    with django_assert_max_num_queries(POLL_QUERIES):
        response = client.get(url, {"v": running_table.version}, HTTP_HX_REQUEST="true")
    assert response.status_code == 204
    seen = running_table.seats.get(user=alice).seen_at
    assert seen is not None, "the first poll wrote the presence"


@pytest.mark.parametrize("tables", [1, 30])
def test_the_lobby_costs_the_same_with_few_or_many_tables(
    alice, tables, django_assert_max_num_queries
):
    """Each of the player's rows shows its number, whose turn, the clock and its last move,
    from the table's row and its prefetched seats."""
    rules = get_rules("district-noir")
    for _ in range(tables):
        host = UserFactory()
        table_create(user=host, game="district-noir", num_seats=2, seconds_per_move=86400)
        mine = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
        table_join(table_id=mine.pk, user=UserFactory())
        mine.refresh_from_db()
        seat = mine.seats.select_related("user").get(is_waiting=True)
        action = rules.legal_actions(rules.from_json(mine.state), seat.position)[0]
        move_play(table_id=mine.pk, user=seat.user, action=action, version=mine.version)
    client = client_for(alice)
    with django_assert_max_num_queries(LOBBY_QUERIES):
        response = client.get(reverse("lobby"))
    content = response.content.decode()
    assert content.count("table-row") >= 2 * tables
    assert content.count("Last move:") == tables
    assert content.count("data-deadline") == tables
    assert content.count("Your turn") + content.count("Waiting for") == tables


# A move's own statements (games.services.move_statements): the table locked and read with
# its seats, players, paces and vacations, and whether the mover moved since (read again, a
# third, only after waiting for another write to the table); then one statement writing the
# table, the clocks that changed and the move. SQLite has no data-modifying CTEs: its write is
# three statements.
MOVE_SERVICE_QUERIES = 3 if connection.vendor == "postgresql" else 4
# Session and user; the move (MOVE_SERVICE_QUERIES); and the transaction's savepoint and its
# release (the test runs in a transaction). The new board reuses the table and seats the move
# just wrote.
MOVE_QUERIES = 2 + MOVE_SERVICE_QUERIES + 2


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


def _next_move(table, rules) -> dict:
    """A move that does not end the game (the end also settles the ratings)."""
    state = rules.from_json(table.state)
    seat = rules.active_seats(state)[0]
    legal = rules.legal_actions(state, seat)
    action = next((a for a in legal if rules.outcome(rules.apply(state, seat, a)) is None), None)
    return {
        "table_id": table.pk,
        "user": user_at(table, seat),
        "action": action or legal[0],
        "version": table.version,
    }


def _leaves_a_move(rules, state) -> bool:
    """Whether the game goes on in ``state`` and its next player has a move that does not end it."""
    if rules.outcome(state) is not None:
        return False
    seat = rules.active_seats(state)[0]
    return any(
        rules.outcome(rules.apply(state, seat, a)) is None for a in rules.legal_actions(state, seat)
    )


def _play_leaving_a_move(table, count: int, rng: random.Random):
    """Up to ``count`` random moves, each leaving the next player a move that does not end the
    game: the deal is new each run, and at its last move every choice ends it (the test failed
    so once in a while, its move 41 ending the game)."""
    rules = get_rules(table.game)
    for _ in range(count):
        state = rules.from_json(table.state)
        seat = rules.active_seats(state)[0]
        choices = [
            a
            for a in rules.legal_actions(state, seat)
            if _leaves_a_move(rules, rules.apply(state, seat, a))
        ]
        if not choices:
            break
        move_play(
            table_id=table.pk,
            user=user_at(table, seat),
            action=rng.choice(choices),
            version=table.version,
        )
        table.refresh_from_db()
    return table


def _play_one(table, rules) -> None:
    move_play(**_next_move(table, rules))


def _statements(captured: CaptureQueriesContext) -> list[str]:
    """The queries run, less the transaction's own BEGIN and COMMIT."""
    control = ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE SAVEPOINT")
    return [q["sql"] for q in captured.captured_queries if not q["sql"].startswith(control)]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("moves", [0, 40])
def test_a_move_runs_three_statements_at_most_at_any_point_of_the_game(running_table, moves):
    """At move 1 and at move 41 (a move that does not end the game: the end writes results and
    ratings through the ORM, once a game)."""
    Table.objects.filter(pk=running_table.pk).update(rated=False)
    table = _play_leaving_a_move(running_table, moves, random.Random(moves))
    move = _next_move(table, get_rules(table.game))
    with CaptureQueriesContext(connection) as captured:
        move_play(**move)
    statements = _statements(captured)
    assert len(statements) <= MOVE_SERVICE_QUERIES, "\n".join(s[:120] for s in statements)


@pytest.mark.django_db(transaction=True)
def test_a_push_to_an_open_page_costs_one_query(
    running_table, carol, django_assert_max_num_queries
):
    """However many pages are open: the public part is rendered once per version (the first
    page's render reads the seats too), then each page reads the table row and no more."""
    from games import boards

    rules = get_rules(running_table.game)
    _play_one(running_table, rules)
    seats = list(running_table.seats.all())
    audiences = [boards.Audience(s.position, s.user_id) for s in seats]
    audiences += [boards.Audience(None, carol.pk), boards.Audience(None)]
    boards.changed_since(running_table.pk, audiences[0], boards.SentParts())  # fills the cache
    for audience in audiences:
        with django_assert_max_num_queries(1):
            html = boards.changed_since(running_table.pk, audience, boards.SentParts())
        assert 'id="board-public"' in html


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("game, seats", [("slide", 4), ("gnav", 4), ("point-city", 3)])
def test_every_move_of_a_whole_game_runs_three_statements_at_most(game, seats, make_user):
    """Every move but the last (which settles the result and the ratings)."""
    users = [make_user() for _ in range(seats)]
    table = table_create(user=users[0], game=game, num_seats=seats, seconds_per_move=86400)
    for user in users[1:]:
        table_join(table_id=table.pk, user=user)
    rules, rng, counts = get_rules(game), random.Random(7), []
    table.refresh_from_db()
    while table.is_running:
        state = rules.from_json(table.state)
        seat = rng.choice(rules.waiting_seats(state) or rules.active_seats(state))
        action = rng.choice(rules.legal_actions(state, seat))
        with CaptureQueriesContext(connection) as captured:
            move_play(table_id=table.pk, user=users[seat], action=action, version=table.version)
        table.refresh_from_db()
        if table.is_running:
            counts.append(len(_statements(captured)))
    assert counts and max(counts) <= MOVE_SERVICE_QUERIES, Counter(counts)
