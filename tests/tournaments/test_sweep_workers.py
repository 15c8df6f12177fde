"""Nothing starts twice when two workers run the same sweep at once (#29.3), on PostgreSQL:
two real Celery workers sent ``tournaments.tasks.sweep`` at the same moment, several times,
with several tournaments due to start; and two threads calling ``sweep_tournaments`` at once
(a barrier) over every kind of work it does: a start, a window's game due to start, a window
that closed. Every tournament gets one round one, every pairing one table; and the work the
sweeps report adds up to exactly what there was to do, so that a start done twice (or refused
by the ``round_once`` constraint, a failed task) shows before any constraint would hide it."""

from __future__ import annotations

import datetime as dt
import re
import shutil
import threading
import time

import pytest
from django.db import connection, connections
from django.utils import timezone

from games.models import Seat, Table
from tests.support.faults import Worker
from tests.support.processes import RedisServer, wait_for
from tests.support.tournament_runs import tournament_made
from tournaments.models import Format, Pairing, PairingSeat, Round, Tournament
from tournaments.services import entries
from tournaments.services.rounds import sweep_tournaments

pytestmark = [
    pytest.mark.django_db(transaction=True),
    # send_task always goes to the broker, which is what the worker test wants.
    pytest.mark.filterwarnings("ignore::celery.exceptions.AlwaysEagerIgnored"),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="concurrent sweeps need PostgreSQL (row locks with SKIP LOCKED)",
    ),
]
WAIT_S = 60
# A sweep's end in a worker's log: what it returned (how many things it did), or its error.
ENDED = re.compile(
    r"Task tournaments\.tasks\.sweep\[[^\]]+\] (?:succeeded in [0-9.]+s: (\d+)|raised)"
)


def _due_swisses(make_user, count: int, players: int, now: dt.datetime) -> list[Tournament]:
    """``count`` Swiss tournaments that started an hour ago, ``players`` entered in each."""
    past = now - 2 * dt.timedelta(hours=1)
    return [
        tournament_made(
            creator=make_user(),
            players=[make_user() for _ in range(players)],
            now=past,
            rounds=3,
        )
        for _ in range(count)
    ]


def _started_once(tournament: Tournament, players: int) -> None:
    """One round one, its pairings each with one table of two (and one bye when odd)."""
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    rounds = list(Round.objects.filter(tournament=tournament))
    assert [(r.season, r.number) for r in rounds] == [(1, 1)]
    pairings = list(Pairing.objects.filter(round=rounds[0]))
    games = [p for p in pairings if not p.is_bye]
    assert len(games) == players // 2 and len(pairings) - len(games) == players % 2
    assert PairingSeat.objects.filter(pairing__round=rounds[0]).count() == players
    tables = Table.objects.filter(tournament_pairing__in=games)
    assert tables.count() == len(games) and all(p.table_id is not None for p in games)
    assert Seat.objects.filter(table__in=tables).count() == 2 * len(games)


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server on PATH")
def test_two_workers_sweeping_at_once_start_each_tournament_once(make_user, smtp_inbox):
    _inbox, smtp_port = smtp_inbox
    tournaments = _due_swisses(make_user, count=6, players=9, now=timezone.now())
    redis = RedisServer()
    redis.start()
    workers: list[Worker] = []
    try:
        workers = [Worker(redis.url, smtp_port, 1, options=("--pool=solo",)) for _ in range(2)]
        sends = 3
        for _ in range(sends):
            for worker in workers:  # the same task to both, at the same moment
                worker.send("tournaments.tasks.sweep")
            time.sleep(0.2)

        def ended() -> list[list[str]]:
            return [ENDED.findall("".join(worker.lines)) for worker in workers]

        wait_for(lambda: all(len(e) == sends for e in ended()), "every sweep to end", WAIT_S)
        log = "".join(line for worker in workers for line in worker.lines)
        done = [[int(n) if n else -1 for n in e] for e in ended()]
    finally:
        for worker in workers:
            worker.stop()
        redis.stop()
    assert "IntegrityError" not in log and "raised unexpected" not in log, log[-3000:]
    assert all(n >= 0 for ended in done for n in ended), "a sweep failed:\n" + log[-3000:]
    # Six tournaments to start: six starts between the two workers, whoever did which.
    assert sum(map(sum, done)) == len(tournaments), done
    assert all(len(ended) == sends for ended in done)
    for tournament in tournaments:
        _started_once(tournament, 9)
    assert Round.objects.count() == len(tournaments)
    assert Table.objects.count() == len(tournaments) * 4


def test_two_sweeps_at_once_do_each_thing_once(make_user):
    """Threads, each with its own connection: a start, a window's games due to start and a
    window that closed, all due at ``now``, swept twice at the same moment."""
    now = timezone.now() + dt.timedelta(days=10)
    window, within = dt.timedelta(days=3), dt.timedelta(days=1)
    starting = _due_swisses(make_user, count=3, players=7, now=now)
    # A window that closes by ``now`` with a game still running...
    closing = tournament_made(
        creator=make_user(),
        players=[make_user() for _ in range(2)],
        now=now - window - 2 * dt.timedelta(hours=1),
        format=Format.SWISS_WINDOWS,
        rounds=2,
        round_window=window,
        start_within=within,
    )
    sweep_tournaments(now=closing.starts_at)
    running = Pairing.objects.get(round__tournament=closing)
    for seat in running.seats.select_related("entry__user"):
        entries.pairing_ready(pairing_id=running.pk, user=seat.entry.user, now=closing.starts_at)
    # ... and one whose games wait for their latest start, come by ``now``.
    waiting = tournament_made(
        creator=make_user(),
        players=[make_user() for _ in range(4)],
        now=now - within - 2 * dt.timedelta(hours=1),
        format=Format.SWISS_WINDOWS,
        rounds=2,
        round_window=window,
        start_within=within,
    )
    sweep_tournaments(now=waiting.starts_at)
    assert not Pairing.objects.filter(round__tournament=waiting, table__isnull=False).exists()
    tables_before = Table.objects.count()

    barrier = threading.Barrier(2)
    done: list[int] = []
    errors: list[BaseException] = []

    def sweep() -> None:
        try:
            barrier.wait(10)
            done.append(sweep_tournaments(now=now))
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connections.close_all()

    for _ in range(2):  # the second time, there is nothing left to do
        threads = [threading.Thread(target=sweep) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    assert not errors, errors
    # Three starts, two window games started, one window closed: six things, once each.
    assert sum(done) == 3 + 2 + 1 and sum(done[2:]) == 0, done
    for tournament in starting:
        _started_once(tournament, 7)
    assert list(Round.objects.filter(tournament=closing).values_list("number", "closed_at")) == [
        (1, now),
        (2, None),
    ]
    running.refresh_from_db()
    assert running.done and Table.objects.get(pk=running.table_id).status == Table.Status.FINISHED
    assert Pairing.objects.filter(round__tournament=closing, round__number=2).get().table is None
    started = Pairing.objects.filter(round__tournament=waiting, is_bye=False)
    assert started.count() == 2 and all(p.table_id is not None for p in started)
    assert Table.objects.count() == tables_before + 3 * 3 + 2
    assert sorted(t.pk for t in Table.objects.all()) == sorted(
        Pairing.objects.filter(table__isnull=False).values_list("table_id", flat=True)
    )
