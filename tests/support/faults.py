"""What the fault tests share (Redis paused, restarted empty or gone; a worker killed; issue
20): the real services they need, a private Redis as fixtures, an SMTP server of their own, a
real Celery worker, and a District Noir move over HTTP that they count and replay.

Its fixtures reach every test through ``pytest_plugins`` in tests/conftest.py:
``redis_server`` (a private redis-server the test may pause), ``on_private_redis`` (the site's
channel layer, cache and health check on it) and ``smtp_inbox`` (an SMTP server that keeps what
it is sent).
"""

from __future__ import annotations

import asyncio
import email
import json
import os
import shutil
import signal
import subprocess
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from email import policy
from typing import Any

import pytest
from django.db import connection
from django.urls import reverse

from accounts.models import User
from config import redis_guard
from games.models import Table
from games.rules import get_rules
from games.selectors.replays import state_replay
from tests.conftest import client_for, user_at
from tests.support.processes import (
    ROOT,
    RedisServer,
    celery_worker_command,
    database_url,
    free_port,
)

# A fault test's module: ``pytestmark = REAL_SERVICES``.
REAL_SERVICES = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql" or shutil.which("redis-server") is None,
        reason="fault tests need PostgreSQL (DATABASE_URL) and redis-server on PATH",
    ),
]
# The longest a move may take while Redis hangs: one socket timeout for the cache and one for
# the broadcast (0.5 s each), once; then the breakers skip Redis (a loaded machine adds some).
MOVE_BUDGET_S = 2.0
WORKER_START_S = 90

DN = get_rules("district-noir")
HTMX = {"HTTP_HX_REQUEST": "true"}


def next_move(table: Table) -> tuple[User, dict, int]:
    """Who moves next at a District Noir table, a legal action of theirs, the version."""
    table.refresh_from_db()
    state = DN.from_json(table.state)
    seat = DN.active_seats(state)[0]
    return user_at(table, seat), DN.legal_actions(state, seat)[0], table.version


def play_over_http(table: Table) -> Any:
    """The next move, posted as a page without a socket posts it; the response."""
    player, action, version = next_move(table)
    return client_for(player).post(
        reverse("table_act", args=[table.pk]),
        {"action": json.dumps(action), "version": version},
        **HTMX,
    )


def replays_exactly(table: Table) -> bool:
    """Whether the stored state is the replay of the seed and the moves stored."""
    table.refresh_from_db()
    return DN.to_json(state_replay(table)) == table.state


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def on_private_redis(redis_server: RedisServer, settings, site_redis_timeouts) -> RedisServer:
    """Channel layer, cache and health check on the private Redis, with the site's timeouts
    and breakers (their pause shortened to 3 s)."""
    settings.REDIS_URL = redis_server.url
    settings.REDIS_PAUSE_SECONDS = 3.0
    settings.CHANNEL_LAYERS = {"default": redis_guard.channel_layer(redis_server.url)}
    settings.CACHES = {
        "default": {
            "BACKEND": "config.redis_guard.GuardedRedisCache",
            "LOCATION": redis_server.url_of(1),
            "OPTIONS": {
                "socket_connect_timeout": settings.REDIS_CONNECT_TIMEOUT,
                "socket_timeout": settings.REDIS_SOCKET_TIMEOUT,
            },
        }
    }
    return redis_server


@contextmanager
def smtp_server(handler: object) -> Iterator[int]:
    """An SMTP server on a free port whose messages go to ``handler`` (aiosmtpd's); its port."""
    from aiosmtpd.controller import Controller

    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield port
    finally:
        controller.stop()


class Inbox:
    """Keeps every message it is sent."""

    def __init__(self) -> None:
        self.messages: list[email.message.EmailMessage] = []

    async def handle_DATA(self, server, session, envelope) -> str:
        self.messages.append(email.message_from_bytes(envelope.content, policy=policy.default))
        return "250 Message accepted"


@pytest.fixture
def smtp_inbox() -> Iterator[tuple[Inbox, int]]:
    inbox = Inbox()
    with smtp_server(inbox) as port:
        yield inbox, port


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


@contextmanager
def holding_smtp(hold_at: int) -> Iterator[tuple[SlowInbox, int]]:
    """A ``SlowInbox`` served on a free port, released at the end so its server can stop."""
    inbox = SlowInbox(hold_at)
    with smtp_server(inbox) as port:
        try:
            yield inbox, port
        finally:
            inbox.released.set()


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
        from celery import Celery

        self.queue = queue or f"faults-{uuid.uuid4().hex[:8]}"
        environment = {k: v for k, v in os.environ.items() if k != "PYTEST_VERSION"}
        environment.update(
            DATABASE_URL=database_url(connection.settings_dict),
            REDIS_URL=broker,
            DJANGO_SECRET_KEY="fault-test-secret-key-that-is-long-enough-0123456789",
            EMAIL_HOST="127.0.0.1",
            EMAIL_PORT=str(smtp_port),
            TASKS_MODE="celery",
            **(env or {}),
        )
        command = celery_worker_command("-Q", self.queue, "--concurrency", str(concurrency))
        self.process = subprocess.Popen(
            [*command, "-l", "info", *options],
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
        if not ready.wait(WORKER_START_S):
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

    def stop(self) -> None:
        """A warm shutdown (SIGTERM: the task at hand finishes); killed after 15 s."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.kill()
