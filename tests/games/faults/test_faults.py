"""Faults on the real services: Redis stopped mid-game, a worker killed mid-sweep, the
database connection dropped mid-move.

Each test runs its own redis-server on a free port (never the shared one) and, where a
worker is needed, real Celery workers pointed at it.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator

import psycopg
import pytest
from asgiref.sync import async_to_sync
from celery import Celery
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from config import redis_guard
from games.live.routing import websocket_urlpatterns
from games.models import Move, Seat, Table
from games.rules import get_rules
from games.selectors.replays import state_replay
from games.services.moves import move_apply, state_store
from games.services.tables import table_create, table_join
from tests.conftest import client_for, user_at
from tests.games.jobs.test_worker import ROOT, _database_url, _free_port, wait_for

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql" or shutil.which("redis-server") is None,
        reason="fault tests need PostgreSQL (DATABASE_URL) and redis-server on PATH",
    ),
]

DN = get_rules("district-noir")
HTMX = {"HTTP_HX_REQUEST": "true"}
WAIT_S = 90


class PrivateRedis:
    """A redis-server of this test's own, that the test may stop and start again."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        command += ["--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        import redis

        client = redis.Redis(port=self.port, socket_connect_timeout=0.2)
        wait_for(lambda: _answers(client), "the private Redis", 20)

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


def _answers(client) -> bool:
    try:
        return client.ping()
    except Exception:
        return False


@pytest.fixture
def private_redis() -> Iterator[PrivateRedis]:
    server = PrivateRedis()
    server.start()
    yield server
    server.stop()


def _next_move(table: Table) -> tuple[User, dict, int]:
    table.refresh_from_db()
    state = DN.from_json(table.state)
    seat = DN.active_seats(state)[0]
    return user_at(table, seat), DN.legal_actions(state, seat)[0], table.version


def _play_over_http(table: Table):
    player, action, version = _next_move(table)
    return client_for(player).post(
        reverse("table_act", args=[table.pk]),
        {"action": json.dumps(action), "version": version},
        **HTMX,
    )


def _replays_exactly(table: Table) -> bool:
    table.refresh_from_db()
    return DN.to_json(state_replay(table)) == table.state


# (a) Redis stopped in the middle of a game.


def test_moves_are_stored_while_redis_is_down_and_live_updates_resume_after(
    running_table, private_redis, settings, monkeypatch
):
    settings.REDIS_URL = private_redis.url
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [private_redis.url]},
        }
    }
    watcher = user_at(running_table, 0)

    async def a_socket_sees_the_next_move() -> str:
        socket = WebsocketCommunicator(
            URLRouter(websocket_urlpatterns), f"/ws/t/{running_table.pk}/"
        )
        socket.scope["user"] = watcher
        connected, _ = await socket.connect(timeout=10)
        assert connected
        response = await database_sync_to_async(_play_over_http)(running_table)
        assert response.status_code == 200
        frame = await socket.receive_from(timeout=10)
        await socket.disconnect()
        return frame

    frame = async_to_sync(a_socket_sees_the_next_move)()
    assert f'data-version="{Table.objects.get(pk=running_table.pk).version}"' in frame

    private_redis.stop()
    for _ in range(3):
        assert _play_over_http(running_table).status_code == 200
    running_table.refresh_from_db()
    assert running_table.moves.count() == 4 and _replays_exactly(running_table)
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

    layer_breaker = redis_guard.breaker_for(private_redis.url)
    assert layer_breaker.is_open  # later moves no longer wait on dead Redis
    private_redis.start()
    layer_breaker.reset()  # as if the pause had run out
    frame = async_to_sync(a_socket_sees_the_next_move)()
    assert f'data-version="{Table.objects.get(pk=running_table.pk).version}"' in frame
    assert running_table.moves.count() == 5 and _replays_exactly(running_table)


# (b) A worker killed in the middle of its sweeps.


class SlowInbox:
    """An SMTP sink that holds the ``hold_at``-th message at MAIL FROM until released."""

    def __init__(self, hold_at: int) -> None:
        self.messages: list[tuple[str, bytes]] = []
        self.hold_at, self.mails = hold_at, 0
        self.holding = threading.Event()
        self.released = threading.Event()

    async def handle_MAIL(self, server, session, envelope, address, mail_options) -> str:
        self.mails += 1
        if self.mails == self.hold_at:
            self.holding.set()
            while not self.released.is_set():
                await asyncio.sleep(0.05)
        envelope.mail_from = address
        return "250 OK"

    async def handle_DATA(self, server, session, envelope) -> str:
        self.messages.append((envelope.rcpt_tos[0], envelope.content))
        return "250 Message accepted"


@pytest.fixture
def slow_inbox() -> Iterator[tuple[SlowInbox, int]]:
    from aiosmtpd.controller import Controller

    inbox, port = SlowInbox(hold_at=2), _free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    yield inbox, port
    inbox.released.set()
    controller.stop()


class Worker:
    """`celery worker` in a process group of its own, so SIGKILL takes every child with it."""

    def __init__(
        self,
        broker: str,
        smtp_port: int,
        concurrency: int,
        *,
        queue: str | None = None,
        options: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
    ) -> None:
        """``queue``: the one it consumes (its own by default); ``options``: more of the
        worker's command line (``-B``: beat inside it); ``env``: more settings."""
        self.queue = queue or f"faults-{uuid.uuid4().hex[:8]}"
        environment = {k: v for k, v in os.environ.items() if k != "PYTEST_VERSION"}
        environment.update(
            DATABASE_URL=_database_url(),
            REDIS_URL=broker,
            DJANGO_SECRET_KEY="fault-test-secret-key-that-is-long-enough-0123456789",
            EMAIL_HOST="127.0.0.1",
            EMAIL_PORT=str(smtp_port),
            TASKS_MODE="celery",
            **(env or {}),
        )
        command = [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", self.queue]
        command += ["--concurrency", str(concurrency), "--without-gossip", "--without-mingle"]
        command += ["-l", "info", *options]
        self.process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.lines: list[str] = []
        ready = threading.Event()

        def read() -> None:
            for line in self.process.stdout:
                self.lines.append(line)
                if "ready." in line:
                    ready.set()

        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(WAIT_S):
            self.kill()
            pytest.fail("the worker did not start:\n" + "".join(self.lines[-40:]))
        # Not the current app: the site's own tasks (shared_task) would be sent through it.
        self.sender = Celery("faults", broker=broker, set_as_current=False)

    def send(self, task: str) -> None:
        self.sender.send_task(task, queue=self.queue)

    def kill(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(30)


def _waiting_seat(table: Table) -> Seat:
    return table.seats.select_related("user").get(is_waiting=True)


def test_a_worker_killed_mid_sweep_loses_nothing_and_does_nothing_twice(
    make_user, private_redis, slow_inbox
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

    with psycopg.connect(_database_url().replace("postgres://", "postgresql://")) as lock:
        # Hold the second due table's row: the first worker's deadline sweep stops there.
        lock.execute("SELECT id FROM games_table WHERE id = %s FOR UPDATE", [blocked_table])
        first = Worker(private_redis.url, smtp_port, concurrency=2)
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

    second = Worker(private_redis.url, smtp_port, concurrency=1)
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
        assert _replays_exactly(Table.objects.get(pk=seat.table_id))


# (c) The database connection dropped in the middle of a move.


def _terminate_this_connection() -> None:
    pid = connection.connection.info.backend_pid
    with psycopg.connect(_database_url().replace("postgres://", "postgresql://")) as other:
        other.execute("SELECT pg_terminate_backend(%s, 5000)", [pid])


@pytest.mark.parametrize("when", ["before the move row is written", "before the commit"])
def test_a_connection_dropped_mid_move_is_a_clean_503_and_no_half_move(
    running_table, monkeypatch, when
):
    if when == "before the move row is written":
        original = state_store

        def drop_after(*args, **kwargs):
            original(*args, **kwargs)
            _terminate_this_connection()

        monkeypatch.setattr("games.services.moves.state_store", drop_after)
    else:
        original = move_apply

        def drop_after(*args, **kwargs):
            move = original(*args, **kwargs)
            _terminate_this_connection()
            return move

        monkeypatch.setattr("games.services.moves.move_apply", drop_after)
    before = Table.objects.get(pk=running_table.pk)

    response = _play_over_http(running_table)

    assert response.status_code == 503
    assert "nothing was changed" in response.text
    assert response["Retry-After"]
    after = Table.objects.get(pk=running_table.pk)
    assert (after.version, after.state) == (before.version, before.state)
    assert not Move.objects.filter(table=running_table).exists()
    assert _replays_exactly(after)

    monkeypatch.undo()
    assert _play_over_http(running_table).status_code == 200
    assert Move.objects.filter(table=running_table).count() == 1
    assert _replays_exactly(running_table)
