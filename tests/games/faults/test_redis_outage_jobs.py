"""Bot turns and sweeps across a Redis outage, on a real Celery worker with beat inside it
(issue 20, point 4): the broker's Redis (a private redis-server) is paused, or restarted with
its data lost, while bot turns are queued or due, a player's time runs out and a reminder falls
due. Once Redis answers again, every one of them happens, exactly once.

The test process plays the web server: moves over HTTP, bot turns queued to the private broker
(``TASKS_MODE=celery``). The worker runs beat (``-B``) with short sweep intervals, so the sweeps
that fall due during the outage are the ones beat could not send.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator

import pytest
import redis
from django.utils import timezone

from config.celery import app as celery_app
from games.models import Move, Reminder, Seat, Table
from games.services.health import HEARTBEAT_KEY
from games.services.tables import table_create, table_create_against_bots, table_join
from tests.support.faults import (
    MOVE_BUDGET_S,
    REAL_SERVICES,
    Worker,
    play_over_http,
    replays_exactly,
)
from tests.support.processes import wait_for

pytestmark = REAL_SERVICES

SWEEP_S = 1.0  # beat's interval for every sweep, in the worker
BOT_RESCUE_S = 4.0  # a bot seat's deadline
BOT_DELAY_S = 2.0  # the countdown of a queued bot turn
OUTAGE_S = 6.0  # at least: longer than a bot's deadline and several sweep intervals
WAIT_S = 90


@pytest.fixture
def queued_to_private_broker(on_private_redis, settings) -> Iterator[None]:
    """This process queues bot turns to the private Redis, as a web server with Redis does."""
    settings.BOT_RESCUE_SECONDS = BOT_RESCUE_S
    settings.BOT_MOVE_DELAY_SECONDS = BOT_DELAY_S
    conf = celery_app.conf
    before = conf.broker_url, conf.task_always_eager, conf.broker_transport_options
    conf.broker_url, conf.task_always_eager = on_private_redis.url, False
    conf.broker_transport_options = {  # the site's timeouts (on_private_redis), not the tests'
        **conf.broker_transport_options,
        "socket_timeout": settings.REDIS_SOCKET_TIMEOUT,
        "socket_connect_timeout": settings.REDIS_CONNECT_TIMEOUT,
    }
    celery_app._pool = celery_app.amqp._producer_pool = None
    yield
    conf.broker_url, conf.task_always_eager, conf.broker_transport_options = before
    celery_app._pool = celery_app.amqp._producer_pool = None


class Supervised:
    """A worker with beat inside it, started again whenever it exits, as systemd does
    (deploy/systemd/cardtables-worker.service: ``Restart=always``). A worker that holds a
    message not yet acknowledged (a bot turn's countdown) when Redis goes away can exit: kombu
    5.7 fails to put the message back over a connection already closed (AttributeError), an
    error Celery does not catch."""

    def __init__(self, start) -> None:
        self.start, self.restarts, self.logs = start, 0, []
        self.worker: Worker = start()

    def keep_running(self) -> None:
        if self.worker.process.poll() is not None:
            self.logs.append("".join(self.worker.lines[-40:]))
            self.restarts += 1
            self.worker = self.start()

    def kill(self) -> None:
        self.worker.kill()
        self.logs.append("".join(self.worker.lines[-80:]))


@pytest.fixture
def worker_with_beat(on_private_redis, smtp_inbox, tmp_path) -> Iterator[Supervised]:
    _inbox, smtp_port = smtp_inbox

    def start() -> Worker:
        return Worker(
            on_private_redis.url,
            smtp_port,
            1,
            queue="celery",  # where beat sends the sweeps and this process the bot turns
            options=("--pool=solo", "-B", "-s", str(tmp_path / "beat-schedule")),
            env={
                "REDIS_CACHE_URL": on_private_redis.url_of(1),
                "SWEEP_DEADLINES_SECONDS": str(SWEEP_S),
                "SWEEP_SECONDS": str(SWEEP_S),
                "BOT_RESCUE_SECONDS": str(BOT_RESCUE_S),
                "REDIS_PAUSE_SECONDS": "2",
            },
        )

    supervised = Supervised(start)
    yield supervised
    supervised.kill()
    print("\n----\n".join(supervised.logs))  # shown when the test failed


def _heartbeat(url: str) -> float:
    """When the worker's deadline sweep last ran (0 if Redis does not answer)."""
    try:
        stored = redis.Redis.from_url(url, socket_timeout=0.5).get(HEARTBEAT_KEY)
    except redis.RedisError:
        return 0.0
    return float(stored) if stored else 0.0


def _against_a_bot(user) -> Table:
    """A District Noir table against an easy bot, waiting for ``user`` (the bot's first move, if
    it had one, was played at once: tasks run inline until the test queues them)."""
    table = table_create_against_bots(
        user=user, game="district-noir", num_seats=2, level="easy", seconds_per_move=86400
    )
    table.refresh_from_db()
    assert table.seats.get(position=0).is_waiting
    return table


def _between(first, second) -> Table:
    table = table_create(user=first, game="district-noir", num_seats=2, seconds_per_move=86400)
    table_join(table_id=table.pk, user=second)
    return Table.objects.get(pk=table.pk)


def _moves(table: Table) -> list[tuple[int, str]]:
    return list(Move.objects.filter(table=table).values_list("position", "by"))


@pytest.mark.parametrize("fault", ["paused", "restarted empty"])
def test_bot_turns_timeouts_and_reminders_due_in_an_outage_happen_after_it_once_each(
    make_user,
    on_private_redis,
    queued_to_private_broker,
    worker_with_beat,
    smtp_inbox,
    settings,
    fault,
):
    inbox, _port = smtp_inbox
    alice, bob, carol, dave, erin = (make_user() for _ in range(5))
    before_fault, failing, skipped = (_against_a_bot(alice) for _ in range(3))
    timing_out = _between(bob, carol)
    reminding = _between(dave, erin)
    tables = [before_fault, failing, skipped, timing_out, reminding]
    stored = {table.pk: _moves(table) for table in tables}
    settings.TASKS_MODE = "celery"
    wait_for(lambda: _heartbeat(on_private_redis.url), "beat's first deadline sweep", WAIT_S)

    # A bot turn queued just before the fault: its message is in Redis, or held by the worker.
    assert play_over_http(before_fault).status_code == 200
    if fault == "paused":
        on_private_redis.pause()
    else:
        on_private_redis.stop()
    outage_began = time.monotonic()

    # During the outage: the moves are accepted; the first bot turn cannot be queued (the
    # broker fails), the second is not even tried (this process leaves the broker alone).
    for table in (failing, skipped):
        started = time.monotonic()
        assert play_over_http(table).status_code == 200
        assert time.monotonic() - started < MOVE_BUDGET_S
    # A player's time runs out and another's reminder falls due, while beat cannot send sweeps.
    soon = timezone.now() + dt.timedelta(seconds=1)
    out_of_time = timing_out.seats.get(is_waiting=True)
    Seat.objects.filter(pk=out_of_time.pk).update(deadline=soon)
    reminded = reminding.seats.select_related("user").get(is_waiting=True)
    Seat.objects.filter(pk=reminded.pk).update(reminder_due_at=soon)
    wait_for(lambda: time.monotonic() - outage_began > OUTAGE_S, "the end of the outage", 30)
    for table in (failing, skipped, timing_out):  # nothing reached the worker meanwhile
        assert _moves(table) == stored[table.pk] + [(0, Move.By.PLAYER)] * (table != timing_out)
    assert not inbox.messages

    if fault == "paused":
        on_private_redis.resume()
    else:
        on_private_redis.start()  # the same port, nothing in it: every queued message is lost
    resumed = time.monotonic()

    expected = {
        **{t.pk: stored[t.pk] + [(0, Move.By.PLAYER), (1, Move.By.BOT)] for t in tables[:3]},
        timing_out.pk: [(out_of_time.position, Move.By.TIMEOUT)],
        reminding.pk: [],
    }

    def everything_happened() -> bool:
        worker_with_beat.keep_running()
        return (
            all(len(_moves(t)) >= len(expected[t.pk]) for t in tables) and len(inbox.messages) >= 1
        )

    wait_for(everything_happened, "every bot turn, the timeout and the reminder", WAIT_S)
    recovered_s = time.monotonic() - resumed
    # Nothing more comes: two more rounds of every sweep, and the bot turns' late messages.
    done = time.time()
    wait_for(lambda: _heartbeat(on_private_redis.url) > done + 2 * SWEEP_S, "two more sweeps")

    for table in tables:
        table.refresh_from_db()
        assert _moves(table) == expected[table.pk], table
        seqs = list(Move.objects.filter(table=table).values_list("seq", flat=True))
        assert seqs == list(range(1, len(seqs) + 1)) and table.moves_played == len(seqs)
        assert replays_exactly(table)
    assert [message["To"] for message in inbox.messages] == [reminded.user.email]
    assert Reminder.objects.filter(seat=reminded, sent_at__isnull=False).count() == 1
    print(
        f"\n{fault}: everything done {recovered_s:.1f} s after Redis answered again"
        f" (worker restarted {worker_with_beat.restarts} times)"
    )
