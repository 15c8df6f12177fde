"""Twenty simultaneous submissions of one move, on real PostgreSQL with separate connections."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections

from games import services
from games.errors import GameError
from games.models import Move, Table
from games.rules import get_rules
from tests.conftest import user_at

DN = get_rules("district-noir")
SUBMISSIONS = 20

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="row locks need PostgreSQL (set DATABASE_URL)"
    ),
]


def test_the_same_move_sent_twenty_times_at_once_is_applied_exactly_once(alice, bob):
    table = services.table_create(
        user=alice, game="district-noir", num_seats=2, seconds_per_move=86400
    )
    services.table_join(table_id=table.pk, user=bob)
    table.refresh_from_db()
    state = DN.from_json(table.state)
    seat = DN.active_seats(state)[0]
    action = DN.legal_actions(state, seat)[0]
    mover = user_at(table, seat)

    start = threading.Barrier(SUBMISSIONS)
    results: list[str] = []
    lock = threading.Lock()

    def submit() -> None:
        try:
            start.wait()
            services.move_play(table_id=table.pk, user=mover, action=action, version=table.version)
            outcome = "applied"
        except GameError as exc:
            outcome = exc.message
        finally:
            connections.close_all()
        with lock:
            results.append(outcome)

    threads = [threading.Thread(target=submit) for _ in range(SUBMISSIONS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert results.count("applied") == 1
    refusals = [r for r in results if r != "applied"]
    assert len(refusals) == SUBMISSIONS - 1
    assert all("moved on" in r for r in refusals)
    assert Move.objects.filter(table=table).count() == 1
    table_after = Table.objects.get(pk=table.pk)
    assert table_after.version == table.version + 1
    assert table_after.state == DN.to_json(DN.apply(state, seat, action))
