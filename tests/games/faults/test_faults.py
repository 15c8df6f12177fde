"""Faults on the real services: Redis stopped mid-game, a worker killed mid-sweep, the
database connection dropped mid-move.

Each test runs its own redis-server on a free port (never the shared one) and, where a
worker is needed, real Celery workers pointed at it.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator

import psycopg
import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from config import redis_guard
from games.live.routing import websocket_urlpatterns
from games.models import Move, Seat, Table
from games.services import move_statements
from games.services.moves import move_apply
from games.services.tables import table_create, table_join
from tests.conftest import client_for, user_at
from tests.support.faults import (
    HTMX,
    REAL_SERVICES,
    SlowInbox,
    Worker,
    holding_smtp,
    play_over_http,
    replays_exactly,
)
from tests.support.processes import database_url, wait_for
from tests.support.sockets import BoardSocket

pytestmark = REAL_SERVICES
WAIT_S = 90


def _connect() -> psycopg.Connection:
    """A connection of its own to the test database, beside Django's."""
    return psycopg.connect(
        database_url(connection.settings_dict).replace("postgres", "postgresql", 1)
    )


# (a) Redis stopped in the middle of a game.


def test_moves_are_stored_while_redis_is_down_and_live_updates_resume_after(
    running_table, redis_server, settings, monkeypatch
):
    settings.REDIS_URL = redis_server.url
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [redis_server.url]},
        }
    }
    watcher = user_at(running_table, 0)

    async def a_socket_sees_the_next_move() -> str:
        socket = BoardSocket(URLRouter(websocket_urlpatterns), f"/ws/t/{running_table.pk}/")
        socket.scope["user"] = watcher  # a seat: its bell may come before the board
        connected, _ = await socket.connect(timeout=10)
        assert connected
        response = await database_sync_to_async(play_over_http)(running_table)
        assert response.status_code == 200
        frame = await socket.receive_from(timeout=10)
        await socket.disconnect()
        return frame

    frame = async_to_sync(a_socket_sees_the_next_move)()
    assert f'data-version="{Table.objects.get(pk=running_table.pk).version}"' in frame

    redis_server.stop()
    for _ in range(3):
        assert play_over_http(running_table).status_code == 200
    running_table.refresh_from_db()
    assert running_table.moves.count() == 4 and replays_exactly(running_table)
    poll = client_for(watcher).get(
        reverse("table_detail", args=[running_table.pk]), {"v": running_table.version - 1}, **HTMX
    )
    assert poll.status_code == 200 and f'data-version="{running_table.version}"' in poll.text
    unchanged = client_for(watcher).get(
        reverse("table_detail", args=[running_table.pk]), {"v": running_table.version}, **HTMX
    )
    assert unchanged.status_code == 204
    health = client_for(None).get(reverse("health"))
    assert health.status_code == 503 and health.json()["redis"]["ok"] is False

    layer_breaker = redis_guard.breaker_for(redis_server.url)
    assert layer_breaker.is_open  # later moves no longer wait on dead Redis
    redis_server.start()
    layer_breaker.reset()  # as if the pause had run out
    frame = async_to_sync(a_socket_sees_the_next_move)()
    assert f'data-version="{Table.objects.get(pk=running_table.pk).version}"' in frame
    assert running_table.moves.count() == 5 and replays_exactly(running_table)


# (b) A worker killed in the middle of its sweeps.


@pytest.fixture
def slow_inbox() -> Iterator[tuple[SlowInbox, int]]:
    with holding_smtp(hold_at=2) as (inbox, port):
        yield inbox, port


def _waiting_seat(table: Table) -> Seat:
    return table.seats.select_related("user").get(is_waiting=True)


def test_a_worker_killed_mid_sweep_loses_nothing_and_does_nothing_twice(
    make_user, redis_server, slow_inbox
):
    inbox, smtp_port = slow_inbox
    now = timezone.now()

    def running() -> Table:
        table = table_create(
            user=make_user(), game="district-noir", num_seats=2, seconds_per_move=86400
        )
        table_join(table_id=table.pk, user=make_user())
        return Table.objects.get(pk=table.pk)

    reminded = [_waiting_seat(running()) for _ in range(3)]
    Seat.objects.filter(pk__in=[s.pk for s in reminded]).update(
        reminder_due_at=now - dt.timedelta(minutes=5)
    )
    timed_out = [_waiting_seat(running()) for _ in range(3)]
    for age, seat in zip([30, 20, 10], timed_out):
        Seat.objects.filter(pk=seat.pk).update(deadline=now - dt.timedelta(seconds=age))
    blocked_table = timed_out[1].table_id

    with _connect() as lock:
        # Hold the second due table's row: the first worker's deadline sweep stops there.
        lock.execute("SELECT id FROM games_table WHERE id = %s FOR UPDATE", [blocked_table])
        first = Worker(redis_server.url, smtp_port, concurrency=2)
        first.send("games.tasks.sweep_deadlines")
        first.send("games.tasks.sweep_reminders")
        wait_for(
            lambda: Move.objects.filter(table_id=timed_out[0].table_id).exists(),
            "timeout 1",
            WAIT_S,
        )
        wait_for(
            lambda: inbox.holding.is_set() and len(inbox.messages) == 1, "the 2nd e-mail", WAIT_S
        )
        first.kill()  # mid-sweep: one timeout played, one waiting on a lock; one e-mail sent
        lock.rollback()
    inbox.released.set()
    assert Move.objects.filter(table_id__in=[s.table_id for s in timed_out]).count() == 1

    second = Worker(redis_server.url, smtp_port, concurrency=1)
    try:
        for _ in range(2):
            second.send("games.tasks.sweep_deadlines")
            second.send("games.tasks.sweep_reminders")
        wait_for(lambda: len(inbox.messages) >= 3, "every reminder", WAIT_S)
        wait_for(
            lambda: all(Move.objects.filter(table_id=s.table_id).exists() for s in timed_out),
            "every timeout",
            WAIT_S,
        )
        time.sleep(3)  # the second round of sweeps finds nothing more to do
    finally:
        second.kill()

    recipients = sorted(to for to, _content in inbox.messages)
    assert recipients == sorted(seat.user.email for seat in reminded)
    for seat in timed_out:
        moves = Move.objects.filter(table_id=seat.table_id)
        assert [(m.position, m.by) for m in moves] == [(seat.position, Move.By.TIMEOUT)]
        assert replays_exactly(Table.objects.get(pk=seat.table_id))


# (c) The database connection dropped in the middle of a move.


def _terminate_this_connection() -> None:
    pid = connection.connection.info.backend_pid
    with _connect() as other:
        other.execute("SELECT pg_terminate_backend(%s, 5000)", [pid])


@pytest.mark.parametrize("when", ["between the read and the write", "before the commit"])
def test_a_connection_dropped_mid_move_is_a_clean_503_and_no_half_move(
    running_table, monkeypatch, when
):
    if when == "between the read and the write":  # the table locked, the move not yet written
        original = move_statements.move_write

        def drop_before(**kwargs):
            _terminate_this_connection()
            original(**kwargs)

        monkeypatch.setattr(move_statements, "move_write", drop_before)
    else:
        original = move_apply

        def drop_after(*args, **kwargs):
            move = original(*args, **kwargs)
            _terminate_this_connection()
            return move

        monkeypatch.setattr("games.services.moves.move_apply", drop_after)
    before = Table.objects.get(pk=running_table.pk)

    response = play_over_http(running_table)

    assert response.status_code == 503
    assert "nothing was changed" in response.text
    assert response["Retry-After"]
    after = Table.objects.get(pk=running_table.pk)
    assert (after.version, after.state) == (before.version, before.state)
    assert not Move.objects.filter(table=running_table).exists()
    assert replays_exactly(after)

    monkeypatch.undo()
    assert play_over_http(running_table).status_code == 200
    assert Move.objects.filter(table=running_table).count() == 1
    assert replays_exactly(running_table)
