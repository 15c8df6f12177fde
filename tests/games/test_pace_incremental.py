"""The pace job every minute counts the turns stored since its last run and writes again only
the rows that changed (``pace_refresh_changed``), and they are the rows the full count writes:
after new moves, a game finished, moves leaving the window and a reminder delay changed; a
turn found by two runs is counted once, and one committed late is not missed."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.db import connection, connections
from django.db.models import Max
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import REMINDERS_OFF
from games.jobs import sweeps
from games.models import Move, PaceMove, PaceRun, PlayerPace, Seat, Table
from games.services import pace
from games.services.bot_moves import seat_hand_to_bot, table_play_out
from games.services.pace import PACE_LOCK, WINDOW, pace_refresh, pace_refresh_changed
from games.services.reminders import reminder_settings_update
from games.services.tables import table_create_against_bots
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
    """What the full count would write now, the rows and the counted turns left as they were."""
    kept = [list(model.objects.all()) for model in (PlayerPace, PaceMove, PaceRun)]
    pace_refresh(now=now)
    rows = _rows()
    for model, before in zip((PlayerPace, PaceMove, PaceRun), kept, strict=True):
        model.objects.all().delete()
        model.objects.bulk_create(before)
    return rows


def test_the_job_writes_what_the_full_count_would(make_user):
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


def test_with_no_turn_counted_yet_the_job_is_the_full_count(alice, bob):
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


def test_beat_runs_no_full_count_the_job_every_minute_is_all(settings):
    tasks = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "games.tasks.sweep_pace" in tasks
    assert not any("pace_full" in task for task in tasks)


def _turns_of(user) -> list[tuple[int, float | None]]:
    return sorted(PaceMove.objects.filter(user=user).values_list("move_id", "waited"))


def test_a_turn_found_by_two_runs_is_counted_once(alice, bob):
    history(alice, bob, moves=5, timeouts=1, seed=12)
    now = timezone.now() + dt.timedelta(minutes=1)
    pace_refresh(now=now)
    counted, row = _turns_of(alice), _rows()[alice.pk]
    assert len(counted) == 6
    # Two more runs that look back over the same moves (a run's overlap, a second worker).
    for _ in range(2):
        pace_refresh_changed(now=now, after=now - dt.timedelta(hours=1))
    assert _turns_of(alice) == counted
    assert _rows()[alice.pk] == row


def test_a_move_committed_after_a_run_began_but_made_before_it_is_counted(alice, bob):
    (table,) = history(alice, bob, moves=2, seed=13)
    run = timezone.now() + dt.timedelta(minutes=5)
    pace_refresh_changed(now=run)  # the first run: everything so far
    before = _rows()[alice.pk][FIGURES.index("moves")]
    # Her next move was made 30 s before that run began and committed after it had read.
    play_turns(table, alice, moves=1, rng=random.Random(13))
    late = Move.objects.filter(table=table).order_by("-seq")[0]
    made = run - dt.timedelta(seconds=30)
    Move.objects.filter(pk=late.pk).update(created_at=made)
    Table.objects.filter(pk=table.pk).update(last_move_at=made)
    assert late.position == Seat.objects.get(table=table, user=alice).position
    pace_refresh_changed(now=run + dt.timedelta(minutes=1))
    assert _rows()[alice.pk][FIGURES.index("moves")] == before + 1
    assert late.pk in dict(_turns_of(alice))


def test_turns_that_left_the_window_are_dropped(alice, bob):
    history(alice, bob, moves=3, seed=14)
    now = timezone.now()
    pace_refresh_changed(now=now)
    assert PaceMove.objects.exists()
    later = now + WINDOW + dt.timedelta(minutes=5)
    pace_refresh_changed(now=later)
    assert not PaceMove.objects.filter(at__lt=later - WINDOW).exists()
    assert not PlayerPace.objects.exists()  # nothing of theirs is left in the window


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's advisory lock")
def test_a_run_that_finds_another_under_way_leaves_it_the_work(alice, bob):
    history(alice, bob, moves=2, seed=16)
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [PACE_LOCK])
        assert pace_refresh_changed() == 0
        assert not PaceMove.objects.exists() and not PlayerPace.objects.exists()
    finally:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [PACE_LOCK])
        other.close()
    assert pace_refresh_changed() == 2


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's aggregates")
def test_postgresql_writes_the_rows_python_does(make_user, alice, bob, carol):
    """The job sums a player's turns up and writes their row in one statement on PostgreSQL,
    and in Python elsewhere: the same rows, to the last bit of the median and the shares, over
    odd and even counts, timeouts only, waits on the reminder delay's edge, turns out of the
    window and games abandoned (only: no turn counted)."""
    rng = random.Random(17)
    now = timezone.now()
    since = now - WINDOW
    players = [make_user() for _ in range(7)]
    for player, delay in zip(players, [0, 5, 60, 240, REMINDERS_OFF, 1440, 30], strict=True):
        player.reminder_delay = delay
        player.save(update_fields=["reminder_delay"])
    table = table_between(alice, bob)
    stored = Move.objects.bulk_create(
        Move(table=table, seq=1000 + n, position=0, action={}) for n in range(400)
    )
    turns = []
    for index, move in enumerate(stored):
        player = players[index % 7] if index % 11 else players[-1]
        if player == players[4] and index % 3 == 0:
            waited = None  # a timeout; players[4] has some, players[-1] only its own moves
        elif index % 5 == 0:
            waited = 60.0 * max(player.reminder_delay, 60)  # on the edge of the delay
        else:
            waited = rng.uniform(0, 3 * 86400)
        at = now - dt.timedelta(days=rng.uniform(0, 100))
        turns.append(PaceMove(move=move, user=player, at=at, waited=waited))
    # Erin's two waits have a median half way between two seconds: rounded to the even one.
    erin = make_user()
    for waited, move in zip(
        (2.0, 3.0),
        Move.objects.bulk_create(
            Move(table=table, seq=2000 + n, position=0, action={}) for n in range(2)
        ),
        strict=True,
    ):
        turns.append(PaceMove(move=move, user=erin, at=now, waited=waited))
    PaceMove.objects.bulk_create(turns)
    PaceMove.objects.filter(user=players[2], waited__isnull=False).update(waited=None)
    # Games abandoned: Carol's (a bot plays her seat on), and Dave's, finished: his only thing
    # to leave the window.
    assert seat_hand_to_bot(table_id=table_between(carol, alice).pk, user_id=carol.pk)
    dave = make_user()
    done = table_between(dave, bob)
    play_turns(done, dave, moves=0, timeouts=3, rng=random.Random(18))
    play_turns(done, bob, moves=1, rng=random.Random(18))
    assert table_play_out(table_id=done.pk)

    def written(write, chosen) -> dict[int, tuple]:
        PlayerPace.objects.all().delete()
        write(since, now, chosen)
        return _rows()

    for chosen in (None, {players[0].pk, players[3].pk, carol.pk, alice.pk, dave.pk, erin.pk}):
        in_sql = written(pace._write_in_sql, chosen)
        assert in_sql == written(pace._write_here, chosen)
    everyone = written(pace._write_in_sql, None)
    counted = PaceMove.objects.filter(at__gte=since, waited__isnull=False)
    waits = [counted.filter(user=player).count() for player in players]
    assert {count % 2 for count in waits} == {0, 1}  # odd and even counts of waits
    assert everyone[players[2].pk][0] is None  # timeouts only: no median
    assert everyone[carol.pk][FIGURES.index("abandoned")] == 1
    assert everyone[carol.pk][FIGURES.index("moves")] == 0  # abandoned only
    assert everyone[erin.pk][0] == 2  # 2.5, as Python's round takes it
    assert everyone[dave.pk][FIGURES.index("abandoned")] == 1
    assert everyone[dave.pk][-1] is not None  # his row goes stale as the game leaves the window


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's statement")
def test_postgresql_finds_the_turns_python_does(make_user):
    """The turns are found and kept by one statement on PostgreSQL and in Python elsewhere:
    the same rows, waits to the last bit, over moves and timeouts, a seat handed to a bot and
    played out, a game against bots and moves on either side of ``since``."""
    alice, bob, carol = (make_user() for _ in range(3))
    tables = history(alice, bob, moves=9, timeouts=2, seed=18) + history(carol, bob, moves=5)
    for index, table in enumerate(tables):
        spread(table, seconds=61.123457 * (index + 1))
    abandoned = table_between(carol, alice)
    play_turns(abandoned, carol, moves=1, timeouts=3, rng=random.Random(18))
    play_turns(abandoned, alice, moves=1, rng=random.Random(19))
    table_play_out(table_id=abandoned.pk)
    solo = table_create_against_bots(
        user=alice, game="district-noir", num_seats=2, level="easy", seconds_per_move=86400
    )
    play_turns(solo, alice, moves=2, rng=random.Random(20))
    everything = Table.objects.all()
    moments = sorted(Move.objects.values_list("created_at", flat=True))

    def kept(count) -> set[tuple]:
        PaceMove.objects.all().delete()
        count()
        return set(PaceMove.objects.values_list("move_id", "user_id", "at", "waited"))

    for since in (moments[0], moments[len(moments) // 2]):
        in_sql = kept(lambda since=since: pace._count_turns_in_sql(since))
        here = kept(lambda since=since: pace._count_turns_here(everything, since, every=False))
        assert in_sql == here
        assert {row[3] is None for row in here} == {True, False}  # timeouts and moves
    assert len(in_sql) < len(kept(lambda: pace._count_turns_in_sql(moments[0])))
