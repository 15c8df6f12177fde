"""A finished game's rematch ("Rematch", then "Accept the rematch" or "Decline"), through the
service.

Issue 25, point 4, and issue 27, point 4: the offer is the same game with the same options, seats,
time per move and rated-ness, for the same people, each seat moved on by one (who sat first sits
second), the bots moved on with them (they accept at once); the first player who asks offers it,
the others accept that same table, and the game starts when everyone has; it is theirs alone
(not in the lobby, nobody else sits), withdrawn when one declines or after 24 hours, and a table
takes at most two offers a minute.
"""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.utils import timezone

from accounts.models import Block
from games.errors import Conflict, Forbidden, NotFound
from games.models import Seat, Table
from games.selectors.rematches import next_table_for
from games.selectors.tables import lobby_for
from games.services import events
from games.services.tables import (
    table_abort,
    table_create,
    table_create_against_bots,
    table_join,
    table_rematch,
    table_rematch_decline,
    table_seat_bot,
)
from tests.games.rated_games import finished_game, play_to_the_end

pytestmark = pytest.mark.django_db


def _seats(table: Table) -> list[tuple[int, int | None, str]]:
    return list(table.seats.order_by("position").values_list("position", "user_id", "bot_level"))


def _snapshot() -> tuple:
    tables = Table.objects.order_by("pk").values_list("pk", "status", "version", "next_table_id")
    return list(tables), list(Seat.objects.order_by("pk").values_list("pk", "table_id", "user_id"))


@pytest.fixture
def gnav_table(make_user) -> tuple[Table, list]:
    """A finished Gnav match of four players, at a table with one of its options changed, a
    short time per move and no rating."""
    players = [make_user() for _ in range(4)]
    table = table_create(
        user=players[0],
        game="gnav",
        num_seats=4,
        seconds_per_move=300,
        options={"cat_undoes_trades": False},
        rated=False,
    )
    for player in players[1:]:
        table_join(table_id=table.pk, user=player)
    Table.objects.filter(pk=table.pk).update(max_timeouts=5)
    return play_to_the_end(table, random.Random(2)), players


def test_playing_again_opens_a_table_of_the_same_game_with_the_same_settings(gnav_table):
    old, players = gnav_table
    new = table_rematch(table_id=old.pk, user=players[2])
    assert new.pk != old.pk and new.is_open
    assert (new.game, new.options, new.num_seats) == ("gnav", {"cat_undoes_trades": False}, 4)
    assert (new.seconds_per_move, new.rated, new.max_timeouts) == (300, False, 5)
    assert new.created_by == players[2], "whoever asked may now add bots or abort it"
    assert _seats(new) == [(3, players[2].pk, "")], "their seat moved on by one"
    old.refresh_from_db()
    assert old.next_table == new


def test_the_other_players_open_pages_are_told_of_the_new_table(
    gnav_table, django_capture_on_commit_callbacks
):
    old, players = gnav_table
    heard: list[tuple] = []

    def listener(sender, events, **kwargs):
        heard.append(events)

    events.table_events.connect(listener)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            table_rematch(table_id=old.pk, user=players[0])
    finally:
        events.table_events.disconnect(listener)
    fresh = Table.objects.get(pk=old.pk)
    assert fresh.version == old.version + 1
    (offer,) = Table.objects.filter(rematch_of=old)
    assert heard == [
        (
            events.TableChanged(old.pk, old.version + 1),
            events.RematchOffered(old.pk, offer.pk, players[0].pk),
        )
    ]


def test_the_next_player_accepts_that_same_table_their_seat_moved_on(gnav_table):
    old, players = gnav_table
    new = table_rematch(table_id=old.pk, user=players[1])
    joined = table_rematch(table_id=old.pk, user=players[3])
    assert joined.pk == new.pk
    assert Table.objects.count() == 2
    assert _seats(new) == [(0, players[3].pk, ""), (2, players[1].pk, "")], "the last sits first"
    assert Table.objects.get(pk=new.pk).is_open


def test_the_new_game_starts_when_the_last_player_joins(alice, bob):
    old = finished_game(alice, bob, seed=1)
    new = table_rematch(table_id=old.pk, user=bob)
    assert table_rematch(table_id=old.pk, user=alice).pk == new.pk
    new.refresh_from_db()
    assert new.is_running and new.state is not None and new.seed is not None
    assert _seats(new) == [(0, bob.pk, ""), (1, alice.pk, "")], "who sat second moves first"


def test_asking_twice_opens_one_table_and_asks_nothing_of_the_old_one_again(alice, bob):
    old = finished_game(alice, bob, seed=1)
    first = table_rematch(table_id=old.pk, user=alice)
    version = Table.objects.get(pk=old.pk).version
    again = table_rematch(table_id=old.pk, user=alice)
    assert again.pk == first.pk
    assert Table.objects.count() == 2
    assert Table.objects.get(pk=old.pk).version == version
    assert _seats(first) == [(1, alice.pk, "")]


def test_bots_move_on_with_the_seats_and_a_table_of_bots_starts_at_once(alice):
    table = table_create_against_bots(
        user=alice, game="slide", num_seats=3, level="hard", seconds_per_move=86400
    )
    old = play_to_the_end(table, random.Random(1))
    new = table_rematch(table_id=old.pk, user=alice)
    new.refresh_from_db()
    assert _seats(new) == [(0, None, "hard"), (1, alice.pk, ""), (2, None, "hard")]
    assert new.is_running, "nobody else is to come: the bots accept at once"
    assert new.rated is False


def test_with_people_and_bots_only_the_people_are_waited_for(alice, bob):
    table = table_create(user=alice, game="slide", num_seats=3, seconds_per_move=86400)
    table_seat_bot(table_id=table.pk, user=alice, level="easy")
    table_join(table_id=table.pk, user=bob)
    old = play_to_the_end(table, random.Random(3))
    new = table_rematch(table_id=old.pk, user=bob)
    assert _seats(new) == [(0, bob.pk, ""), (2, None, "easy")]
    assert Table.objects.get(pk=new.pk).is_open
    table_rematch(table_id=old.pk, user=alice)
    assert _seats(new) == [(0, bob.pk, ""), (1, alice.pk, ""), (2, None, "easy")]
    assert Table.objects.get(pk=new.pk).is_running


def test_a_solo_game_played_again_starts_at_once(alice):
    table = table_create(
        user=alice,
        game="point-city",
        num_seats=1,
        seconds_per_move=86400,
        options={"automa_difficulty": 3},
    )
    old = play_to_the_end(table, random.Random(4))
    new = table_rematch(table_id=old.pk, user=alice)
    new.refresh_from_db()
    assert new.is_running and new.options["automa_difficulty"] == 3
    assert _seats(new) == [(0, alice.pk, "")]


def test_a_player_a_bot_replaced_after_timeouts_may_play_again_as_a_person(alice, bob):
    old = finished_game(alice, bob, seed=2)
    Seat.objects.filter(table=old, user=bob).update(replaced_by_bot=True)
    new = table_rematch(table_id=old.pk, user=bob)
    assert _seats(new) == [(0, bob.pk, "")]
    assert not new.seats.get().replaced_by_bot


def test_only_a_player_of_the_game_may_play_it_again(alice, bob, carol):
    old = finished_game(alice, bob, seed=1)
    before = _snapshot()
    with pytest.raises(Forbidden, match="Only the players of this game"):
        table_rematch(table_id=old.pk, user=carol)
    assert _snapshot() == before


def test_a_game_not_over_yet_cannot_be_played_again(running_table, alice, carol):
    waiting = table_create(user=carol, game="district-noir", num_seats=2, seconds_per_move=86400)
    before = _snapshot()
    for table, user in [(running_table, alice), (waiting, carol)]:
        with pytest.raises(Conflict, match="not over yet"):
            table_rematch(table_id=table.pk, user=user)
    assert _snapshot() == before


def test_no_such_table(alice):
    with pytest.raises(NotFound, match=r"There is no such table\."):
        table_rematch(table_id=987654321, user=alice)
    assert not Table.objects.exists()


def test_the_offer_is_theirs_alone_not_in_the_lobby_nor_open_to_others(alice, bob, carol):
    old = finished_game(alice, bob, seed=1)
    new = table_rematch(table_id=old.pk, user=alice)
    before = _snapshot()
    with pytest.raises(Forbidden, match="rematch for the players of the game before it"):
        table_join(table_id=new.pk, user=carol)
    assert _snapshot() == before
    assert new.pk not in [t.pk for t in lobby_for(carol).open_tables]
    assert table_rematch(table_id=old.pk, user=bob).pk == new.pk


def test_a_decline_withdraws_the_offer_for_everyone(alice, bob):
    old = finished_game(alice, bob, seed=1)
    offer = table_rematch(table_id=old.pk, user=alice)
    version = Table.objects.get(pk=old.pk).version
    table_rematch_decline(table_id=old.pk, user=bob)
    assert Table.objects.get(pk=offer.pk).status == Table.Status.ABORTED
    assert Table.objects.get(pk=old.pk).version == version + 1, "their pages learn of it"
    with pytest.raises(Conflict, match="No rematch is on offer"):
        table_rematch_decline(table_id=old.pk, user=bob)
    fresh = table_rematch(table_id=old.pk, user=bob)  # a new offer may follow
    assert fresh.pk != offer.pk and _seats(fresh) == [(0, bob.pk, "")]


def test_an_offer_is_withdrawn_after_24_hours(alice, bob):
    old = finished_game(alice, bob, seed=1)
    offer = table_rematch(table_id=old.pk, user=alice)
    Table.objects.filter(pk=offer.pk).update(created_at=timezone.now() - dt.timedelta(hours=24))
    assert next_table_for(Table.objects.get(pk=old.pk), bob.pk) is None  # "Rematch" again
    fresh = table_rematch(table_id=old.pk, user=bob)
    assert fresh.pk != offer.pk
    assert Table.objects.get(pk=offer.pk).status == Table.Status.ABORTED
    assert _seats(fresh) == [(0, bob.pk, "")]


def test_at_most_two_offers_a_minute_at_one_table(alice, bob):
    old = finished_game(alice, bob, seed=1)
    for _ in range(2):
        table_rematch(table_id=old.pk, user=alice)
        table_rematch_decline(table_id=old.pk, user=bob)
    before = _snapshot()
    with pytest.raises(Conflict, match="within a minute"):
        table_rematch(table_id=old.pk, user=alice)
    assert _snapshot() == before
    Table.objects.filter(rematch_of=old).update(created_at=timezone.now() - dt.timedelta(minutes=1))
    assert table_rematch(table_id=old.pk, user=alice).is_open


def test_a_block_with_no_games_refuses_the_rematch_seat(alice, bob):
    old = finished_game(alice, bob, seed=1)
    Block.objects.create(blocker=bob, blocked=alice)
    before = _snapshot()
    with pytest.raises(Forbidden, match="You blocked a player at this table"):
        table_rematch(table_id=old.pk, user=bob)
    assert _snapshot() == before
    with pytest.raises(Forbidden, match="This table is not open to you"):
        table_rematch(table_id=old.pk, user=alice)  # nor is one offered to the blocker
    assert _snapshot() == before


def test_an_aborted_new_table_is_replaced_by_a_fresh_one(alice, bob):
    old = finished_game(alice, bob, seed=1)
    aborted = table_rematch(table_id=old.pk, user=alice)
    table_abort(table_id=aborted.pk, user=alice)
    fresh = table_rematch(table_id=old.pk, user=bob)
    assert fresh.pk not in (old.pk, aborted.pk)
    assert _seats(fresh) == [(0, bob.pk, "")]
    old.refresh_from_db()
    assert old.next_table == fresh
    assert Table.objects.get(pk=aborted.pk).status == Table.Status.ABORTED
