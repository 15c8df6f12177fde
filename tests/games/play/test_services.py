"""Tables from opening to the end of a game, through the service layer."""

from __future__ import annotations

import random

import pytest

from games.catalog import playable_games
from games.errors import Conflict, Forbidden, GameError, NotFound
from games.models import Move, Seat, Table
from games.rules import get_rules
from games.selectors.replays import state_replay
from games.services.moves import move_play
from games.services.tables import table_abort, table_create, table_join, table_leave
from tests.conftest import play_random_moves, user_at

pytestmark = pytest.mark.django_db

DN = get_rules("district-noir")


def test_opening_a_table_seats_its_creator_and_waits_for_players(alice):
    table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    assert table.status == Table.Status.OPEN
    assert list(table.seats.values_list("position", "user")) == [(0, alice.pk)]
    assert table.state is None and table.seed is None


@pytest.mark.parametrize(
    ("game", "seats", "seconds"),
    [("no-such-game", 2, 86400), ("district-noir", 3, 86400), ("district-noir", 2, 17)],
)
def test_a_table_with_impossible_settings_is_refused(alice, game, seats, seconds):
    with pytest.raises(GameError):
        table_create(user=alice, game=game, num_seats=seats, seconds_per_move=seconds)
    assert not Table.objects.exists()


def test_the_game_starts_when_the_last_seat_is_taken(running_table, alice, bob):
    assert running_table.status == Table.Status.RUNNING
    assert running_table.seed is not None
    state = DN.from_json(running_table.state)
    assert DN.to_json(state) == DN.to_json(DN.setup(2, running_table.seed, running_table.options))
    waiting = [s.position for s in running_table.seats.all() if s.is_waiting]
    assert waiting == DN.active_seats(state)


def test_joining_twice_keeps_one_seat_and_a_full_table_refuses_more(running_table, bob, carol):
    table_join(table_id=running_table.pk, user=bob)
    assert running_table.seats.filter(user=bob).count() == 1
    with pytest.raises(Conflict):
        table_join(table_id=running_table.pk, user=carol)


def test_a_player_can_leave_before_the_start_but_the_creator_must_abort(alice, bob, carol):
    table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    with pytest.raises(Forbidden):
        table_leave(table_id=table.pk, user=alice)
    with pytest.raises(Forbidden):
        table_leave(table_id=table.pk, user=bob)
    with pytest.raises(Forbidden):
        table_abort(table_id=table.pk, user=bob)
    table_abort(table_id=table.pk, user=alice)
    table.refresh_from_db()
    assert table.status == Table.Status.ABORTED
    with pytest.raises(Conflict):
        table_join(table_id=table.pk, user=carol)


def test_leaving_frees_the_seat_for_someone_else(alice, bob, carol):
    big = next((r for r in playable_games() if r.min_players <= 3 <= r.max_players), None)
    if big is None:
        pytest.skip("no registered game seats three players yet")
    table = table_create(user=alice, game=big.slug, num_seats=3, seconds_per_move=86400)
    table_join(table_id=table.pk, user=bob)
    table_leave(table_id=table.pk, user=bob)
    assert not table.seats.filter(user=bob).exists()
    table_join(table_id=table.pk, user=carol)
    assert list(table.seats.values_list("user", flat=True)) == [alice.pk, carol.pk]
    table.refresh_from_db()
    assert table.status == Table.Status.OPEN


def test_a_started_game_cannot_be_left_or_aborted(running_table, alice, bob):
    with pytest.raises(Conflict):
        table_leave(table_id=running_table.pk, user=bob)
    with pytest.raises(Conflict):
        table_abort(table_id=running_table.pk, user=alice)


def test_a_move_is_stored_with_the_log_and_bumps_the_version(running_table):
    state = DN.from_json(running_table.state)
    seat = DN.active_seats(state)[0]
    action = DN.legal_actions(state, seat)[0]
    result = move_play(
        table_id=running_table.pk,
        user=user_at(running_table, seat),
        action=action,
        version=running_table.version,
    )
    assert result.table.version == running_table.version + 1
    assert list(Move.objects.values_list("seq", "position", "action")) == [(1, seat, action)]
    assert result.table.state == DN.to_json(DN.apply(state, seat, action))


def test_a_repeated_or_stale_submission_is_refused_and_changes_nothing(running_table):
    state = DN.from_json(running_table.state)
    seat = DN.active_seats(state)[0]
    mover = user_at(running_table, seat)
    first, second = DN.legal_actions(state, seat)[:2]
    seen = running_table.version
    move_play(table_id=running_table.pk, user=mover, action=first, version=seen)
    after = Table.objects.get(pk=running_table.pk)
    for action in (first, second):
        with pytest.raises(Conflict, match="moved on"):
            move_play(table_id=running_table.pk, user=mover, action=action, version=seen)
    assert Move.objects.count() == 1
    again = Table.objects.get(pk=running_table.pk)
    assert (again.version, again.state) == (after.version, after.state)


def test_a_version_from_the_future_is_refused(running_table):
    state = DN.from_json(running_table.state)
    seat = DN.active_seats(state)[0]
    with pytest.raises(Conflict):
        move_play(
            table_id=running_table.pk,
            user=user_at(running_table, seat),
            action=DN.legal_actions(state, seat)[0],
            version=running_table.version + 5,
        )
    assert not Move.objects.exists()


def test_another_seats_move_meanwhile_does_not_make_a_legal_choice_stale(running_table):
    """Only the seat's own moves make its board stale: in a simultaneous phase all act at once."""
    seen = running_table.version
    state = DN.from_json(running_table.state)
    first = DN.active_seats(state)[0]
    action = DN.legal_actions(state, first)[0]
    move_play(
        table_id=running_table.pk, user=user_at(running_table, first), action=action, version=seen
    )
    state = DN.apply(state, first, action)
    second = DN.active_seats(state)[0]
    reply = DN.legal_actions(state, second)[0]
    move_play(
        table_id=running_table.pk, user=user_at(running_table, second), action=reply, version=seen
    )
    assert Move.objects.count() == 2


def test_out_of_turn_and_illegal_moves_are_refused_with_the_rules_reason(running_table):
    state = DN.from_json(running_table.state)
    seat = DN.active_seats(state)[0]
    with pytest.raises(GameError, match="not your turn"):
        move_play(
            table_id=running_table.pk,
            user=user_at(running_table, 1 - seat),
            action={"type": "take"},
            version=running_table.version,
        )
    with pytest.raises(GameError, match="not in your hand"):
        move_play(
            table_id=running_table.pk,
            user=user_at(running_table, seat),
            action={"type": "play", "card": 999},
            version=running_table.version,
        )
    assert not Move.objects.exists()
    assert Table.objects.get(pk=running_table.pk).version == running_table.version


def test_only_seated_players_move_and_only_at_existing_tables(running_table, carol):
    with pytest.raises(Forbidden):
        move_play(table_id=running_table.pk, user=carol, action={"type": "take"}, version=None)
    with pytest.raises(NotFound):
        move_play(table_id=10**9, user=carol, action={"type": "take"}, version=None)


def test_a_whole_game_finishes_with_ranks_and_replays_from_seed_and_moves(running_table):
    table = play_random_moves(running_table, 200, random.Random(3))
    assert table.status == Table.Status.FINISHED
    assert table.finished_at is not None
    outcome = DN.outcome(DN.from_json(table.state))
    assert table.outcome == outcome.to_json()
    ranks = dict(Seat.objects.filter(table=table).values_list("position", "rank"))
    assert ranks == {0: outcome.ranks[0], 1: outcome.ranks[1]}
    assert not Seat.objects.filter(table=table, is_waiting=True).exists()
    assert DN.to_json(state_replay(table)) == table.state


def test_a_finished_game_refuses_further_moves(running_table):
    table = play_random_moves(running_table, 200, random.Random(4))
    with pytest.raises(Conflict):
        move_play(
            table_id=table.pk,
            user=user_at(table, 0),
            action={"type": "take"},
            version=table.version,
        )
