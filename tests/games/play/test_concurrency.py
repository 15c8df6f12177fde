"""Twenty simultaneous submissions of one move, on real PostgreSQL with separate connections."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections

from games.errors import GameError
from games.models import Move, Table
from games.rules import get_rules
from games.services.moves import move_play
from games.services.tables import table_create, table_join
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
    table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    table_join(table_id=table.pk, user=bob)
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
            move_play(table_id=table.pk, user=mover, action=action, version=table.version)
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


def _run_at_once(work, count: int = 2) -> None:
    start = threading.Barrier(count)

    def run() -> None:
        try:
            start.wait()
            work()
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def test_two_reminder_sweeps_at_once_send_one_email(alice, bob):
    import datetime as dt

    from django.core import mail
    from django.utils import timezone

    from games.jobs import sweeps

    table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    table_join(table_id=table.pk, user=bob)
    later = timezone.now() + dt.timedelta(hours=2)
    _run_at_once(lambda: sweeps.sweep_reminders(later), count=4)
    assert len(mail.outbox) == 1


def test_two_deadline_sweeps_at_once_play_one_timeout(alice, bob):
    import datetime as dt

    from django.utils import timezone

    from games.jobs import sweeps
    from games.models import Seat

    table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    table_join(table_id=table.pk, user=bob)
    Seat.objects.filter(table=table, is_waiting=True).update(
        deadline=timezone.now() - dt.timedelta(seconds=1)
    )
    _run_at_once(sweeps.sweep_deadlines, count=4)
    assert Move.objects.filter(table=table).count() == 1
