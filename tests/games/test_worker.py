"""A real Celery worker against Redis and PostgreSQL delivers a reminder and plays a timeout.

The worker is a separate process, so its e-mail goes to a real SMTP server (aiosmtpd)
that this test runs, and its moves are read back from the database.
"""

from __future__ import annotations

import datetime as dt
import email
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from email import policy
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from config.celery import app as celery_app
from games.models import Move, Seat

pytestmark = [
    pytest.mark.django_db(transaction=True),
    # send_task always goes to the broker, which is what these tests want.
    pytest.mark.filterwarnings("ignore::celery.exceptions.AlwaysEagerIgnored"),
    pytest.mark.skipif(
        connection.vendor != "postgresql" or not settings.REDIS_URL,
        reason="a real worker needs PostgreSQL and Redis (set DATABASE_URL and REDIS_URL)",
    ),
]

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 60


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Inbox:
    def __init__(self) -> None:
        self.messages: list[email.message.EmailMessage] = []

    async def handle_DATA(self, server, session, envelope) -> str:
        self.messages.append(email.message_from_bytes(envelope.content, policy=policy.default))
        return "250 Message accepted"


@pytest.fixture
def smtp_inbox() -> Iterator[tuple[Inbox, int]]:
    from aiosmtpd.controller import Controller

    inbox, port = Inbox(), _free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    yield inbox, port
    controller.stop()


def _database_url() -> str:
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@pytest.fixture
def worker(smtp_inbox) -> Iterator[str]:
    """Starts `celery worker` on a queue of its own; yields the queue's name."""
    _inbox, port = smtp_inbox
    queue = f"test-{uuid.uuid4().hex[:8]}"
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_VERSION"}
    env.update(
        DATABASE_URL=_database_url(),
        REDIS_URL=settings.REDIS_URL,
        # The shared Redis, waited on as long as the tests wait (config/settings.py).
        REDIS_SOCKET_TIMEOUT=str(settings.REDIS_SOCKET_TIMEOUT),
        REDIS_CONNECT_TIMEOUT=str(settings.REDIS_CONNECT_TIMEOUT),
        DJANGO_SECRET_KEY="worker-test-secret-key-that-is-long-enough-0123456789",
        EMAIL_HOST="127.0.0.1",
        EMAIL_PORT=str(port),
        TASKS_MODE="celery",
    )
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo"]
    command += ["-Q", queue, "--without-gossip", "--without-mingle", "-l", "info"]
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    lines: list[str] = []
    ready = threading.Event()

    def read() -> None:
        for line in process.stdout:
            lines.append(line)
            if "ready." in line:
                ready.set()

    threading.Thread(target=read, daemon=True).start()
    if not ready.wait(WAIT_S):
        process.kill()
        pytest.fail("the worker did not start:\n" + "".join(lines[-40:]))
    yield queue
    process.terminate()
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()


def wait_for(condition, what: str, seconds: float = WAIT_S):
    """What ``condition()`` returns once it is true; fails the test after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}")


def test_the_worker_emails_a_due_reminder_over_smtp(running_table, smtp_inbox, worker):
    inbox, _port = smtp_inbox
    seat = running_table.seats.select_related("user").get(is_waiting=True)
    Seat.objects.filter(pk=seat.pk).update(reminder_due_at=timezone.now() - dt.timedelta(minutes=1))
    celery_app.send_task("games.tasks.sweep_reminders", queue=worker)
    message = wait_for(lambda: inbox.messages and inbox.messages[0], "the reminder e-mail")
    assert message["To"] == seat.user.email
    assert "List-Unsubscribe" in message
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    assert f"/t/{running_table.pk}/" in text and f"/t/{running_table.pk}/" in html
    celery_app.send_task("games.tasks.sweep_reminders", queue=worker)
    time.sleep(2)
    assert len(inbox.messages) == 1


def test_the_worker_plays_a_timed_out_move(running_table, worker):
    seat = running_table.seats.get(is_waiting=True)
    Seat.objects.filter(pk=seat.pk).update(deadline=timezone.now() - dt.timedelta(seconds=5))
    celery_app.send_task("games.tasks.sweep_deadlines", queue=worker)
    move = wait_for(
        lambda: Move.objects.filter(table=running_table, by=Move.By.TIMEOUT).first(),
        "the timeout move",
    )
    assert move.position == seat.position
    seat.refresh_from_db()
    assert seat.timeouts == 1 and not seat.is_waiting
