"""The hourly pace job writes again only the rows that changed since its last run
(``pace_refresh_changed``), and they are the rows the full job writes: after new moves, a game
finished, moves leaving the window and a reminder delay changed."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.db import connection
from django.db.models import Max
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.jobs import sweeps
from games.models import Move, PlayerPace, Table
from games.services.bot_moves import table_play_out
from games.services.pace import WINDOW, pace_refresh, pace_refresh_changed
from games.services.reminders import reminder_settings_update
from tests.support.pace import history, play_turns, spread, table_between

pytestmark = pytest.mark.django_db

FIGURES = ("median_seconds", "within_delay_share", "timeouts_per_100", "abandoned", "moves")


def _rows() -> dict[int, tuple]:
    return {
        row.user_id: (*(getattr(row, name) for name in FIGURES), row.stale_at)
        for row in PlayerPace.objects.all()
    }


def _back_dated(tables: list[Table]) -> None:
    """The tables' last move and end when their moves were made (``spread`` moved them)."""
    for table in tables:
        last = Move.objects.filter(table=table).aggregate(last=Max("created_at"))["last"]
        Table.objects.filter(pk=table.pk).update(last_move_at=last)
        Table.objects.filter(pk=table.pk, finished_at__isnull=False).update(finished_at=last)


def _full_rows(now: dt.datetime) -> dict[int, tuple]:
    """What the full job would write now, the rows left as they were."""
    before = list(PlayerPace.objects.all())
    pace_refresh(now=now)
    rows = _rows()
    PlayerPace.objects.all().delete()
    PlayerPace.objects.bulk_create(before)
    return rows


def test_the_hourly_job_writes_what_the_full_one_would(make_user):
    alice, bob, carol, dave, erin = (make_user() for _ in range(5))
    start = timezone.now()
    # Alice's and Bob's games of long ago, two or more tables (how many the first history takes
    # depends on the deal): all their moves leave the window within three days from now, the
    # first two days from now.
    old = history(alice, bob, moves=8, timeouts=2, seed=1) + history(alice, bob, moves=3, seed=11)
    for index, table in enumerate(old):
        since = start - WINDOW + dt.timedelta(days=2, hours=6 * index)
        spread(table, seconds=600, since=since)
    last_old = Move.objects.filter(table__in=old).aggregate(last=Max("created_at"))["last"]
    assert last_old < start - WINDOW + dt.timedelta(days=3)
    recent = history(carol, bob, moves=6, seed=2)
    for table in recent:
        spread(table, seconds=600, since=start - dt.timedelta(days=20))
    _back_dated(old + recent)
    abandoned = table_between(dave, carol)
    play_turns(abandoned, dave, moves=0, timeouts=3, rng=random.Random(3))
    history(erin, carol, moves=3, seed=4)
    assert pace_refresh(now=start) == 5
    assert _rows() == _full_rows(start)

    # The hour after: Carol and Dave play again, Dave's abandoned game is played out, Erin
    # changes her reminder delay; nothing new for Alice and Bob.
    later = start + dt.timedelta(hours=1)
    history(carol, dave, moves=4, seed=5)
    play_turns(abandoned, carol, moves=1, rng=random.Random(6))
    table_play_out(table_id=abandoned.pk)
    erin.reminder_delay = 5
    reminder_settings_update(user=erin, now=later)
    expected = _full_rows(later)
    written = pace_refresh_changed(now=later)
    assert written == 3  # Carol, Dave and Erin
    assert _rows() == expected

    # Three days on, nobody played: Alice's and Bob's moves together have left the window.
    # Bob's row is written again without them, Alice's goes (the full job drops it too).
    days_later = start + dt.timedelta(days=3)
    expected = _full_rows(days_later)
    assert alice.pk not in expected and bob.pk in expected
    assert pace_refresh_changed(now=days_later) == 1
    assert _rows() == expected

    # Months on, as the others' moves leave the window.
    months_later = start + WINDOW + dt.timedelta(days=30)
    expected = _full_rows(months_later)
    pace_refresh_changed(now=months_later)
    assert _rows() == expected


def test_a_run_with_nothing_changed_writes_nothing(alice, bob):
    history(alice, bob, moves=3, seed=7)
    now = timezone.now() + dt.timedelta(hours=1)
    assert pace_refresh(now=now) == 2
    assert pace_refresh_changed(now=now + dt.timedelta(hours=1)) == 0


def test_with_no_row_yet_the_hourly_job_is_the_full_one(alice, bob):
    history(alice, bob, moves=3, seed=8)
    assert sweeps.sweep_pace() == 2
    assert PlayerPace.objects.count() == 2


def _queries(work) -> int:
    with CaptureQueriesContext(connection) as captured:
        work()
    return len(captured)


def test_either_job_costs_the_same_queries_for_2_or_12_players(make_user):
    def run(players: int) -> tuple[int, int]:
        people = [make_user() for _ in range(players)]
        for first, second in zip(people[::2], people[1::2], strict=True):
            history(first, second, moves=2, seed=first.pk)
        now = timezone.now() + dt.timedelta(minutes=1)
        full = _queries(lambda: pace_refresh(now=now))
        history(people[0], people[1], moves=1, seed=9)
        changed = _queries(lambda: pace_refresh_changed(now=now + dt.timedelta(hours=1)))
        PlayerPace.objects.all().delete()
        return full, changed

    assert run(2) == run(12)


def test_beat_runs_the_full_job_daily_and_the_embedded_loop_does_too(
    alice, bob, settings, monkeypatch
):
    from games.jobs import embedded
    from games.jobs.tasks import sweep_pace_full

    assert settings.CELERY_BEAT_SCHEDULE["sweep-pace-full"] == {
        "task": "games.tasks.sweep_pace_full",
        "schedule": 24 * 3600,
    }
    history(alice, bob, moves=2, seed=10)
    assert sweep_pace_full.delay().get() == 2
    settings.TASKS_MODE = "thread"
    clock = [1_000_000.0]
    monkeypatch.setattr(sweeps.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(sweeps, "_last_pace", [])
    monkeypatch.setattr(sweeps, "_last_pace_full", [])
    full = []
    monkeypatch.setattr(sweeps, "pace_refresh", lambda **kw: full.append(1) or 0)
    changed = []
    monkeypatch.setattr(sweeps, "pace_refresh_changed", lambda **kw: changed.append(1) or 0)
    embedded.run_once()  # a process's first round: all of it
    clock[0] += 1800
    embedded.run_once()  # within the hour: nothing
    clock[0] += 1800
    embedded.run_once()  # an hour on: the rows that changed
    clock[0] += 24 * 3600
    embedded.run_once()  # a day on: all of it again
    assert (len(full), len(changed)) == (2, 1)
