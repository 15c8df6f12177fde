"""A real Celery worker against Redis and PostgreSQL delivers a reminder and plays a timeout.

The worker is a separate process, so its e-mail goes to a real SMTP server (aiosmtpd)
that this test runs, and its moves are read back from the database.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from config.celery import app as celery_app
from games.models import Move, Seat
from tests.support.faults import Worker
from tests.support.processes import wait_for

pytestmark = [
    pytest.mark.django_db(transaction=True),
    # send_task always goes to the broker, which is what these tests want.
    pytest.mark.filterwarnings("ignore::celery.exceptions.AlwaysEagerIgnored"),
    pytest.mark.skipif(
        connection.vendor != "postgresql" or not settings.REDIS_URL,
        reason="a real worker needs PostgreSQL and Redis (set DATABASE_URL and REDIS_URL)",
    ),
]


@pytest.fixture
def worker(smtp_inbox) -> Iterator[str]:
    """Starts `celery worker` on a queue of its own, on the shared Redis; yields the queue's
    name."""
    _inbox, port = smtp_inbox
    worker = Worker(
        settings.REDIS_URL,
        port,
        1,
        options=("--pool=solo",),
        # The shared Redis, waited on as long as the tests wait (config/settings.py).
        env={
            "REDIS_SOCKET_TIMEOUT": str(settings.REDIS_SOCKET_TIMEOUT),
            "REDIS_CONNECT_TIMEOUT": str(settings.REDIS_CONNECT_TIMEOUT),
        },
    )
    yield worker.queue
    worker.stop()


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
