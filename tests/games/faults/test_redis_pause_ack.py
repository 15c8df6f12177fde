"""A worker whose broker pauses exactly while it acknowledges a task goes on consuming after the
pause (the broker's Redis is a private redis-server, paused with SIGSTOP).

Tasks are acknowledged late (``CELERY_TASK_ACKS_LATE``): after they ran. An acknowledgement
sent to a paused Redis times out (``socket_timeout``), and kombu 5.7's Redis transport then
kept the task counted as still held: with a prefetch of one, that worker never asked Redis for
another task, without exiting, so nothing restarted it (``config.broker`` has the fix).
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator

import pytest
from django.utils import timezone

from games.models import Move, Seat, Table
from games.services.tables import table_create, table_join
from tests.support.faults import REAL_SERVICES, SlowInbox, Worker, holding_smtp
from tests.support.processes import wait_for

pytestmark = REAL_SERVICES
WAIT_S = 30  # far more than a worker needs to take a task from a Redis that answers
PAUSE_AFTER_S = 3.0  # Redis stays paused this long after the acknowledgement failed


@pytest.fixture
def holding_inbox() -> Iterator[tuple[SlowInbox, int]]:
    """An SMTP server that holds the first e-mail until the test releases it."""
    with holding_smtp(hold_at=1) as (inbox, port):
        yield inbox, port


def _waiting_seat(make_user) -> Seat:
    table = table_create(
        user=make_user(), game="district-noir", num_seats=2, seconds_per_move=86400
    )
    table_join(table_id=table.pk, user=make_user())
    return Table.objects.get(pk=table.pk).seats.select_related("user").get(is_waiting=True)


@pytest.mark.parametrize("pool", ["prefork", "solo"])
def test_a_worker_whose_ack_times_out_in_a_redis_pause_takes_the_next_task_after_it(
    make_user, redis_server, holding_inbox, pool
):
    inbox, smtp_port = holding_inbox
    reminded, timing_out = _waiting_seat(make_user), _waiting_seat(make_user)
    Seat.objects.filter(pk=reminded.pk).update(
        reminder_due_at=timezone.now() - dt.timedelta(minutes=5)
    )
    # One task at a time, as each of production's worker processes takes (prefetch of one).
    worker = Worker(redis_server.url, smtp_port, 1, options=(f"--pool={pool}",))
    try:
        worker.send("games.tasks.sweep_reminders")
        wait_for(inbox.holding.is_set, "the reminder sweep at its e-mail", WAIT_S)
        redis_server.pause()  # while the task runs: its acknowledgement will find Redis paused
        inbox.released.set()
        wait_for(lambda: inbox.messages, "the reminder e-mail", WAIT_S)
        wait_for(
            lambda: any("Couldn't ack" in line for line in worker.lines),
            "the acknowledgement to fail",
            WAIT_S,
        )
        time.sleep(PAUSE_AFTER_S)  # the pause goes on a while: any length must do
        redis_server.resume()

        Seat.objects.filter(pk=timing_out.pk).update(
            deadline=timezone.now() - dt.timedelta(seconds=1)
        )
        worker.send("games.tasks.sweep_deadlines")
        wait_for(
            lambda: Move.objects.filter(table_id=timing_out.table_id).exists(),
            "the next task (the deadline sweep's timeout) after the pause",
            WAIT_S,
        )
        assert worker.process.poll() is None  # the same worker: it consumed, it did not exit
    finally:
        worker.kill()
        print("".join(worker.lines[-60:]))  # shown when the test failed

    moves = Move.objects.filter(table_id=timing_out.table_id)
    assert [(m.position, m.by) for m in moves] == [(timing_out.position, Move.By.TIMEOUT)]
    assert [to for to, _content in inbox.messages] == [reminded.user.email]
