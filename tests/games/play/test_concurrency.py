"""Twenty simultaneous submissions of one move, on real PostgreSQL with separate connections."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, connections

from accounts.models import User, Vacation
from games.errors import GameError
from games.models import Move, Table
from games.rules import get_rules
from games.services import clocks
from games.services.moves import move_play
from games.services.tables import table_create, table_join
from games.services.vacations import vacation_start
from tests.conftest import user_at

DN = get_rules("district-noir")
SUBMISSIONS = 20

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="row locks need PostgreSQL (set DATABASE_URL)"
    ),
]


def _started_with_a_move(alice, bob):
    """A District Noir table just started: the table, its state, the seat to move, a legal
    move of that seat and its player."""
    table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    table_join(table_id=table.pk, user=bob)
    table.refresh_from_db()
    state = DN.from_json(table.state)
    seat = DN.active_seats(state)[0]
    return table, state, seat, DN.legal_actions(state, seat)[0], user_at(table, seat)


def test_the_same_move_sent_twenty_times_at_once_is_applied_exactly_once(alice, bob):
    table, state, seat, action, mover = _started_with_a_move(alice, bob)

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


def _blocked_on_a_lock(pid: int, seconds: float = 5.0) -> bool:
    """Whether the backend ``pid`` waits for a row lock, within ``seconds``."""
    deadline = time.monotonic() + seconds
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute("SELECT pg_stat_clear_snapshot()")  # else read once a transaction
            cursor.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pid])
            row = cursor.fetchone()
            if row and row[0] == "Lock":
                return True
            time.sleep(0.02)
    return False


def test_a_vacation_started_while_its_player_moves_waits_for_the_move_or_goes_first(
    alice, bob, monkeypatch
):
    """The player to move starts a vacation in one tab while their move goes out from another:
    both happen, one after the other. (The vacation used to lock the player's seat, then its
    table, and a move the other way round: PostgreSQL found them waiting for each other and
    failed one with "deadlock detected".)"""
    table, _state, _seat, action, mover = _started_with_a_move(alice, bob)
    move_backend: list[int] = []
    move_started = threading.Event()
    failures: list[BaseException] = []
    pause = clocks.seat_clock_pause

    def pause_once_the_move_waits(**kwargs) -> None:
        # The vacation holds its locks: the move starts now and is let to wait for one.
        move_started.set()
        assert _blocked_on_a_lock(_backend_of(move_backend)), "the move never waited"
        pause(**kwargs)

    monkeypatch.setattr(clocks, "seat_clock_pause", pause_once_the_move_waits)

    def vacation() -> None:
        try:
            vacation_start(user=User.objects.get(pk=mover.pk), days=1)
        except BaseException as exc:
            failures.append(exc)
        finally:
            move_started.set()
            connections.close_all()

    def move() -> None:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                move_backend.append(cursor.fetchone()[0])
            move_started.wait(10)
            move_play(table_id=table.pk, user=mover, action=action, version=table.version)
        except BaseException as exc:
            failures.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=move), threading.Thread(target=vacation)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert failures == []
    assert Move.objects.filter(table=table).count() == 1
    assert Vacation.objects.filter(user=mover).count() == 1


def _backend_of(found: list[int]) -> int:
    deadline = time.monotonic() + 5
    while not found and time.monotonic() < deadline:
        time.sleep(0.01)
    return found[0]
