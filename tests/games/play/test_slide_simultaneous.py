"""Slide's simultaneous pick on real PostgreSQL: the last picks arrive at the same moment.

Each thread has its own database connection, so the row lock in ``move_play`` is
what serialises them. What a player needs: a pick is never refused just because
another seat picked meanwhile; a repeat of one's own pick (a double click, a
second tab) is refused; and the reveal happens exactly once, with every pick in it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.db import connection, connections

from games.errors import GameError
from games.models import Move, Table
from games.rules import get_rules
from games.selectors.replays import state_replay
from games.services.moves import move_play
from games.services.tables import table_create, table_join
from tests.conftest import user_at
from tests.factories import UserFactory

SLIDE = get_rules("slide")
PICKS = {0: (0, 0), 1: (2, 1), 2: (3, 3)}

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="row locks need PostgreSQL (set DATABASE_URL)"
    ),
]


def _pick(seat: int) -> dict:
    row, col = PICKS[seat]
    return {"type": "pick", "row": row, "col": col}


def _table_with_one_pick_in() -> Table:
    """A 3-player table in round 1 where seat 0 has picked and seats 1 and 2 have not."""
    users = [UserFactory() for _ in range(3)]
    table = table_create(user=users[0], game="slide", num_seats=3, seconds_per_move=86400)
    for user in users[1:]:
        table_join(table_id=table.pk, user=user)
    table.refresh_from_db()
    move_play(table_id=table.pk, user=users[0], action=_pick(0), version=table.version)
    table.refresh_from_db()
    return table


def _at_once(calls: list[Callable[[], None]]) -> list[str]:
    """Runs every call in its own thread, all released together; returns what each got."""
    start = threading.Barrier(len(calls))
    results: list[str] = []
    lock = threading.Lock()

    def run(call: Callable[[], None]) -> None:
        try:
            start.wait()
            call()
            outcome = "applied"
        except GameError as exc:
            outcome = exc.message
        finally:
            connections.close_all()
        with lock:
            results.append(outcome)

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def _assert_revealed_once_with_every_pick(table: Table, moves: int) -> None:
    table.refresh_from_db()
    state = SLIDE.from_json(table.state)
    assert state.phase == "slide"
    reveals = [e for e in state.log if e["type"] == "reveal"]
    assert sorted((e["seat"], e["row"], e["col"]) for e in reveals) == [
        (seat, *cell) for seat, cell in sorted(PICKS.items())
    ]
    assert [c["value"] for c in SLIDE.view(state, None)["centre"]] == [e["value"] for e in reveals]
    assert Move.objects.filter(table=table).count() == moves
    # Stored state = replay of seed + moves: the reveal is part of the last pick's move.
    assert SLIDE.to_json(state_replay(table)) == table.state
    waiting = sorted(table.seats.filter(is_waiting=True).values_list("position", flat=True))
    assert waiting == [state.turn]


@pytest.mark.parametrize("versions", ["the version each saw", "no version"])
def test_the_last_two_picks_arriving_together_are_both_kept_and_revealed_once(versions):
    table = _table_with_one_pick_in()
    before = table.version
    seen = before if versions == "the version each saw" else None

    def submit(seat: int) -> Callable[[], None]:
        user = user_at(table, seat)
        return lambda: move_play(table_id=table.pk, user=user, action=_pick(seat), version=seen)

    results = _at_once([submit(1), submit(2)])

    assert results == ["applied", "applied"]
    _assert_revealed_once_with_every_pick(table, moves=3)
    assert table.version == before + 2


def test_repeated_last_picks_sent_all_at_once_count_once_per_seat():
    table = _table_with_one_pick_in()
    users = {seat: user_at(table, seat) for seat in (1, 2)}

    def submit(seat: int) -> Callable[[], None]:
        return lambda: move_play(
            table_id=table.pk, user=users[seat], action=_pick(seat), version=table.version
        )

    results = _at_once([submit(seat) for seat in (1, 2) for _ in range(6)])

    assert results.count("applied") == 2
    refusals = [r for r in results if r != "applied"]
    assert len(refusals) == 10 and all("moved on" in r for r in refusals)
    _assert_revealed_once_with_every_pick(table, moves=3)
    applied_by = Move.objects.filter(table=table).values_list("position", flat=True)
    assert sorted(applied_by) == [0, 1, 2]
