"""A move's own statements (``games.services.move_statements``): they leave exactly the rows the
ORM left, over whole games of every game (players, bots, timeouts, a vacation, repeats refused,
the end and its ratings), read the instances the ORM read, and run two statements, none
compiled by the ORM (three when the move waited for another write to its table)."""

from __future__ import annotations

import datetime as dt
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import connection, connections, transaction
from django.db.models import Model
from django.db.models.sql import compiler
from django.db.models.sql.query import Query
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import boards
from games.errors import Conflict
from games.models import Move, PlayerPace, Rating, RatingChange, Seat, Table
from games.rules import get_rules
from games.selectors.pace import pace_of
from games.services import clocks, move_statements, tables
from games.services.bot_moves import bot_turn_play, seat_time_out
from games.services.move_statements import move_read
from games.services.moves import move_play
from games.services.tables import table_create, table_join, table_seat_bot
from games.services.vacations import vacation_end, vacation_start
from tests.conftest import play_a_legal_move
from tests.games.orm_moves import orm_read, through_the_orm
from tests.support.processes import wait_for

pytestmark = pytest.mark.django_db

POSTGRES = connection.vendor == "postgresql"
# An ordinary move's statements: the read that locks, and the write (on SQLite, which has no
# data-modifying CTEs, the write is its three statements one by one).
MOVE_STATEMENTS = 2 if POSTGRES else 4
MAX_STEPS = 600
VACATION_FROM, VACATION_TO = 4, 14


class Clock:
    """``timezone.now()`` frozen where the test sets it: both runs of a game see the same times."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.now = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)
        monkeypatch.setattr(timezone, "now", lambda: self.now)

    def tick(self) -> None:
        self.now += dt.timedelta(seconds=61)


def _writes_counted(patch: pytest.MonkeyPatch) -> list[None]:
    """The move's statements, each write counted (one for each item of the list returned)."""
    written: list[None] = []
    real = move_statements.move_write

    def write(**kwargs: Any) -> None:
        written.append(real(**kwargs))

    patch.setattr(move_statements, "move_write", write)
    return written


def _columns(model: type[Model], but: tuple[str, ...] = ()) -> str:
    return ", ".join(f.column for f in model._meta.concrete_fields if f.attname not in but)


def _rows(table_id: int) -> dict[str, list[tuple[Any, ...]]]:
    """Every row a game wrote, as the database holds it (on SQLite: its JSON and times as
    text); the moves' and ratings' own ids aside (a run rolled back spends them)."""
    user_ids = list(Seat.objects.filter(table_id=table_id).values_list("user_id", flat=True))
    found = {}
    with connection.cursor() as cursor:
        for name, sql, params in [
            ("table", f"SELECT {_columns(Table)} FROM games_table WHERE id = %s", [table_id]),
            (
                "seats",
                f"SELECT {_columns(Seat)} FROM games_seat WHERE table_id = %s ORDER BY position",
                [table_id],
            ),
            (
                "moves",
                f"SELECT {_columns(Move, ('id',))} FROM games_move"
                " WHERE table_id = %s ORDER BY seq",
                [table_id],
            ),
            (
                "ratings",
                f"SELECT {_columns(Rating, ('id',))} FROM games_rating ORDER BY user_id, game",
                [],
            ),
            (
                "rating changes",
                f"SELECT {_columns(RatingChange, ('id',))} FROM games_ratingchange"
                " WHERE table_id = %s ORDER BY user_id",
                [table_id],
            ),
        ]:
            cursor.execute(sql, params)
            found[name] = cursor.fetchall()
    assert user_ids  # the game had players
    return found


def _play_out(table_id: int, rng: random.Random, clock: Clock) -> list[str]:
    """Plays the game to its end as the site would, a minute a step: a waiting bot's move
    (the bot task's ``bot_turn_play``) before anything else; else now and then a repeat of the
    last move (refused) or a waiting player's time running out (the deadline sweep's
    ``seat_time_out``: after three, a bot plays the seat for good); else a player's random legal
    move. The first player is on vacation from step 4 to 14. What happened, step by step."""
    log: list[str] = []
    last: dict[str, Any] | None = None
    away = Seat.objects.filter(table_id=table_id, user__isnull=False).order_by("position")[0]
    for step in range(MAX_STEPS):
        clock.tick()
        if step == VACATION_FROM:
            vacation_start(user=away.user, days=2, now=clock.now)
        elif step == VACATION_TO:
            vacation_end(vacation_id=away.user.vacations.get().pk, now=clock.now)
        table = Table.objects.get(pk=table_id)
        if not table.is_running:
            return log
        rules = get_rules(table.game)
        state = rules.from_json(table.state)
        seats = {s.position: s for s in table.seats.select_related("user")}
        waiting = [seats[p] for p in rules.waiting_seats(state)]
        late = [s for s in waiting if s.deadline is not None and not s.is_bot]
        if any(s.is_bot for s in waiting):
            bot_turn_play(table_id=table_id, version=table.version)
            log.append("bot")
        elif last is not None and rng.random() < 0.1:
            with pytest.raises(Conflict):
                move_play(**last)
            assert Table.objects.get(pk=table_id).version == table.version
            log.append("repeat refused")
        elif late and rng.random() < 0.1:
            seat = late[0]  # the first, so that some player runs out three times
            clock.now = seat.deadline + dt.timedelta(seconds=1)
            seat_time_out(table_id=table_id, position=seat.position, now=clock.now)
            log.append(f"timeout {seat.position}")
        else:
            people = [
                p
                for p in rules.waiting_seats(state) or rules.active_seats(state)
                if seats[p].user_id is not None and not seats[p].replaced_by_bot
            ]
            position = rng.choice(people)
            action = rng.choice(rules.legal_actions(state, position))
            last = {
                "table_id": table_id,
                "user": seats[position].user,
                "action": action,
                "version": table.version,
            }
            move_play(**last)
            log.append(f"move {position}")
    raise AssertionError("the game did not end")


def _table(game: str, seats: int, bots: int, make_user: Any, deal: int = 1) -> Table:
    """A running table of ``game``, its cards dealt from the seed ``deal``."""
    users = [make_user() for _ in range(seats - bots)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tables.secrets, "randbits", lambda bits: deal)
        table = table_create(user=users[0], game=game, num_seats=seats, seconds_per_move=86400)
        for user in users[1:]:
            table_join(table_id=table.pk, user=user)
        for _bot in range(bots):
            table_seat_bot(table_id=table.pk, user=users[0], level="easy")
    table.refresh_from_db()
    assert table.is_running
    return table


GAMES = [
    ("district-noir", 2, 0, 1),
    ("district-noir", 2, 1, 2),
    ("slide", 3, 0, 3),
    ("slide", 4, 1, 4),
    ("gnav", 4, 0, 5),
    ("gnav", 4, 2, 6),
    ("point-city", 2, 0, 7),
    ("point-city", 3, 1, 8),
    ("point-city", 4, 0, 9),
    ("point-city", 1, 0, 10),
]


@pytest.mark.parametrize("game, seats, bots, seed", GAMES)
def test_a_whole_game_leaves_the_rows_the_orm_left(game, seats, bots, seed, make_user, monkeypatch):
    """The same game played twice from the same start, the same moves at the same times:
    through the ORM (as before), then rolled back and played through the move's statements."""
    clock = Clock(monkeypatch)
    table = _table(game, seats, bots, make_user, deal=seed)
    start = clock.now
    runs = []
    for by_hand in (False, True):
        clock.now = start
        with transaction.atomic(), monkeypatch.context() as patch:
            if by_hand:
                written = _writes_counted(patch)
            else:
                through_the_orm(patch)
                written = []
            log = _play_out(table.pk, random.Random(seed), clock)
            assert Table.objects.get(pk=table.pk).is_finished
            runs.append((log, _rows(table.pk), len(written)))
            transaction.set_rollback(True)
    (orm_log, orm_rows, _none), (log, rows, by_hand) = runs
    assert log == orm_log
    assert by_hand == sum(1 for step in log if step.startswith(("move", "bot", "timeout"))) - 1
    for name, found in rows.items():
        assert found == orm_rows[name], name


def test_the_games_cover_timeouts_bots_taking_over_repeats_and_rated_ends(make_user, monkeypatch):
    """What the games above are there for, met by one of them: repeats refused, timeouts, a
    bot taking a seat over, a turn that starts for a player on vacation, a rated end with
    forfeits."""
    clock = Clock(monkeypatch)
    away = []
    real = clocks.seat_turn_start

    def turn_start(**kwargs: Any) -> None:
        away.append(kwargs["on_vacation"])
        real(**kwargs)

    monkeypatch.setattr(clocks, "seat_turn_start", turn_start)
    table = _table("slide", 3, 0, make_user)
    log = _play_out(table.pk, random.Random(3), clock)
    assert True in away
    assert "repeat refused" in log
    assert any(step.startswith("timeout") for step in log)
    assert "bot" in log  # a player timed out three times: a bot plays their seat
    assert RatingChange.objects.filter(table=table).count() == 3
    assert Table.objects.get(pk=table.pk).outcome["forfeited"]


def _instance(instance: Model | None) -> dict[str, Any] | None:
    if instance is None:
        return None
    return {f.attname: getattr(instance, f.attname) for f in instance._meta.concrete_fields}


def test_the_read_builds_the_instances_the_orm_built(make_user, django_assert_num_queries):
    """The table, its seats, their players, paces and vacations, as ``table_locked`` and
    ``table_seats`` read them; the relations' caches filled, so that the board asks nothing."""
    table = _table("point-city", 4, 1, make_user)
    seats = list(table.seats.select_related("user").order_by("position"))
    PlayerPace.objects.create(
        user=seats[0].user, median_seconds=600, moves=40, computed_at=timezone.now()
    )
    vacation_start(user=seats[1].user, days=1)
    with transaction.atomic():
        read = move_read(table_id=table.pk, user_id=seats[0].user_id, version=table.version)
        orm = orm_read(table_id=table.pk, user_id=seats[0].user_id, version=table.version)
    assert _instance(read.table) == _instance(orm.table)
    assert read.moved_since is orm.moved_since is False
    with django_assert_num_queries(0):
        for mine, theirs in zip(read.seats, orm.seats, strict=True):
            assert _instance(mine) == _instance(theirs)
            assert mine.on_vacation is theirs.on_vacation
            assert _instance(mine.user) == _instance(theirs.user)
            pace = pace_of(mine.user) if mine.user else None
            assert _instance(pace) == _instance(pace_of(theirs.user) if theirs.user else None)
            assert mine.table is read.table
    assert [s.on_vacation for s in read.seats] == [False, True, False, False]
    assert pace_of(read.seats[0].user).moves == 40
    assert read.table._state.adding is False and read.seats[0]._state.db == "default"


def test_the_read_tells_a_repeat_from_a_choice_made_before_anothers_move(running_table):
    rules = get_rules(running_table.game)
    state = rules.from_json(running_table.state)
    seat = rules.active_seats(state)[0]
    mover = running_table.seats.get(position=seat).user
    seen = running_table.version
    move_play(
        table_id=running_table.pk,
        user=mover,
        action=rules.legal_actions(state, seat)[0],
        version=seen,
    )
    other = running_table.seats.exclude(position=seat).get().user
    with transaction.atomic():
        assert move_read(table_id=running_table.pk, user_id=mover.pk, version=seen).moved_since
        assert not move_read(table_id=running_table.pk, user_id=other.pk, version=seen).moved_since
        assert move_read(table_id=running_table.pk, user_id=other.pk, version=seen + 5).moved_since
        assert not move_read(table_id=running_table.pk, user_id=mover.pk, version=None).moved_since


@contextmanager
def no_orm_compiler() -> Iterator[None]:
    """Any query the ORM would compile inside fails the test."""

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the ORM compiled a query on the move's path")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Query, "get_compiler", refused)
        for name in dir(compiler):
            found = getattr(compiler, name)
            if isinstance(found, type) and issubclass(found, compiler.SQLCompiler):
                patch.setattr(found, "as_sql", refused)
        yield


def _statements(captured: CaptureQueriesContext) -> list[str]:
    control = ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE SAVEPOINT")
    return [q["sql"] for q in captured.captured_queries if not q["sql"].startswith(control)]


@pytest.mark.parametrize("game, seats", [("district-noir", 2), ("slide", 4), ("gnav", 4)])
def test_a_move_and_its_new_board_run_two_statements_and_compile_nothing(game, seats, make_user):
    """Every move of a game but its last (the end settles results and ratings through the
    ORM, once a game), and the mover's new board drawn from what the move returned."""
    table = _table(game, seats, 0, make_user)
    rules, rng = get_rules(game), random.Random(seats)
    users = {s.position: s.user for s in table.seats.select_related("user")}
    counts = []
    while True:
        table.refresh_from_db()
        state = rules.from_json(table.state)
        position = rng.choice(rules.waiting_seats(state) or rules.active_seats(state))
        action = rng.choice(rules.legal_actions(state, position))
        if rules.outcome(rules.apply(state, position, action)) is not None:
            break
        with no_orm_compiler(), CaptureQueriesContext(connection) as captured:
            result = move_play(
                table_id=table.pk, user=users[position], action=action, version=table.version
            )
            audience = boards.Audience(position, users[position].pk)
            board = boards.board_for(result.table, audience, result.seats, state=result.state)
        counts.append(len(_statements(captured)))
        assert 'id="board-private"' in board.private
    assert counts and set(counts) == {MOVE_STATEMENTS}, counts


def _waiting_on_a_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return int(cursor.fetchone()[0])


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not POSTGRES, reason="row locks need PostgreSQL (set DATABASE_URL)")
def test_a_move_that_waited_for_the_one_before_reads_again_what_it_changed(alice, bob):
    """The second move's read began before the first move committed: its snapshot has the seats
    and the log as they were, beside the table's row as the first move left it. It reads
    again (a third statement) and starts the first mover's clock anew, as the rules say."""
    table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    table_join(table_id=table.pk, user=bob)
    table.refresh_from_db()
    rules = get_rules(table.game)
    state = rules.from_json(table.state)
    first = rules.active_seats(state)[0]
    first_action = rules.legal_actions(state, first)[0]
    between = rules.apply(state, first, first_action)
    second = rules.active_seats(between)[0]
    second_action = rules.legal_actions(between, second)[0]
    users = {s.position: s.user for s in table.seats.select_related("user")}
    held, release = threading.Event(), threading.Event()
    captured: list[list[str]] = []

    def first_move() -> None:
        try:
            with transaction.atomic():
                move_play(
                    table_id=table.pk, user=users[first], action=first_action, version=table.version
                )
                held.set()
                release.wait(30)
        finally:
            connections.close_all()

    def second_move() -> None:
        try:
            held.wait(30)
            with CaptureQueriesContext(connections["default"]) as queries:
                move_play(
                    table_id=table.pk,
                    user=users[second],
                    action=second_action,
                    version=table.version + 1,
                )
            captured.append(_statements(queries))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=first_move), threading.Thread(target=second_move)]
    for thread in threads:
        thread.start()
    held.wait(30)
    wait_for(_waiting_on_a_lock, "the second move to wait for the table's lock", seconds=30)
    release.set()
    for thread in threads:
        thread.join()

    # Its own statements: the read, the read again, the write (what follows is the commit's
    # subscribers' work: notifications, a bot's turn queued).
    (statements,) = captured
    write = next(i for i, sql in enumerate(statements) if sql.lstrip().startswith("WITH"))
    assert len(statements[: write + 1]) == 3, statements[: write + 1]
    assert statements[0] == statements[1]
    after = Table.objects.get(pk=table.pk)
    final = rules.apply(between, second, second_action)
    assert after.version == table.version + 2
    assert after.state == rules.to_json(final)
    waiting = set(rules.waiting_seats(final))
    for seat in after.seats.all():
        assert seat.is_waiting is (seat.position in waiting), seat.position
        assert (seat.deadline is not None) is (seat.position in waiting), seat.position
    assert after.seats.get(position=first).turn == 2  # its turn began, ended, began again


@pytest.mark.skipif(not POSTGRES, reason="prepared statements are PostgreSQL's")
def test_the_statements_are_prepared_once_per_connection(running_table):
    """The server plans each statement once per connection, not once per move."""
    play_a_legal_move(running_table)
    play_a_legal_move(running_table)
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    assert sum("FOR UPDATE OF t" in sql for sql in prepared) == 1, prepared
    assert sum("WITH table_written" in sql for sql in prepared) == 1, prepared
