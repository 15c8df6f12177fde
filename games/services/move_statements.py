"""A move's statements, written by hand: what ``moves.move_play`` reads and writes (#31.1).

A move is the site's hottest write. Through the ORM it took six statements, each compiled
again on every move; here it takes two (three after a wait, below), through Django's connection
(so its transaction, its query log and its error wrapping are Django's), prepared once per
connection on PostgreSQL (``_cursor``):

- ``move_read``: one SELECT that locks the table's row (``FOR UPDATE OF`` the table) and reads
  with it everything a move needs: the table, its seats with their players, each player's
  stored pace (the new board's badges) and whether they are on vacation now (a turn that
  starts for them keeps its clock standing), and whether the mover has moved since the
  version they chose on (a repeat). It builds the models' own instances as the ORM would
  (``Model.from_db``, the fields' converters, the relations' caches), so that the rules, the
  clocks, the boards and the events work on them unchanged.
- ``move_write``: one statement whose CTEs write the table's new state, version and time, the
  clocks of the seats that changed, and append the move.

A read after a wait: in READ COMMITTED a statement reads the snapshot taken when it began, but
the row it locks is the latest version (whoever held the lock committed while it waited), so
the seats and the move log beside that row may be older than it. Every write under a table's
lock moves its version on (its boards are cached by version), so the read compares the version
it locked with the one its snapshot saw; if they differ it reads again, holding the lock now:
a third statement, only for a move that waited for another write to the same table.

SQLite (the embedded default) has neither row locks nor data-modifying CTEs. Its transactions
begin with the database's write lock (``transaction_mode="IMMEDIATE"``), so the read is the
same SELECT without the lock and never reads again, and the write is the same three statements
one after the other. Both databases run this module, so that the suite without DATABASE_URL
tests it too (``tests/games/play/test_move_statements.py``: the rows left equal the ORM's).

The game's end stays on the ORM (``moves.state_store``): results and ratings, once a game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper
from django.db.models import Field, Model
from django.db.models.expressions import Col
from django.db.models.fields.related import ForeignObject
from django.utils import timezone
from django.utils.asyncio import async_unsafe
from django.utils.translation import gettext as _

from accounts.models import User
from games.errors import NotFound
from games.models import Move, PlayerPace, Seat, Table
from games.services.clocks import CLOCK_FIELDS

# What a move (not the game's end) changes: the table's columns, and each changed seat's clock.
TABLE_FIELDS = ("state", "version", "moves_played", "status", "started_at", "seed", "last_move_at")
SEAT_FIELDS = tuple(CLOCK_FIELDS)
MOVE_FIELDS = ("table", "seq", "version", "position", "action", "by", "created_at")


def _field(model: type[Model], name: str) -> Field[Any, Any]:
    field = model._meta.get_field(name)
    assert isinstance(field, Field)
    return field


_TABLE_WRITES = [_field(Table, name) for name in TABLE_FIELDS]
_SEAT_WRITES = [_field(Seat, name) for name in ("id", *SEAT_FIELDS)]
_MOVE_WRITES = [_field(Move, name) for name in MOVE_FIELDS]
_seat_table = Seat._meta.get_field("table")
_seat_user = Seat._meta.get_field("user")
_pace_user = PlayerPace._meta.get_field("user")
assert isinstance(_seat_table, ForeignObject) and isinstance(_seat_user, ForeignObject)
assert isinstance(_pace_user, ForeignObject)

Converter = Callable[[Any, Any, Any], Any]


@async_unsafe
def _cursor(db: BaseDatabaseWrapper) -> CursorWrapper:
    """A cursor for the move's statements, through Django's connection (its transaction, query
    log and error wrapping). On PostgreSQL it binds its parameters on the server, so that
    psycopg prepares each statement once per connection and the server plans it once: a
    move costs about 1 ms less CPU in PostgreSQL and 0.3 ms less here (docs/benchmarks.md).
    Django's connections come with prepared statements off (``prepare_threshold`` None, for
    poolers such as PgBouncer, which this site does not use); its own cursors bind on the
    client and never prepare, so turning them on prepares these statements alone."""
    if db.vendor != "postgresql":
        return db.cursor()
    from django.db.backends.postgresql.base import ServerBindingCursor  # loaded with its backend

    db.close_if_health_check_failed()  # as db.cursor() does, step by step
    db.ensure_connection()
    db.validate_thread_sharing()
    raw = db.connection
    if raw.prepare_threshold is None:
        raw.prepare_threshold = 0
    binding: Any = ServerBindingCursor  # psycopg's Cursor (django-stubs types it without it)
    cursor = binding(raw)
    return _DebugCursor(cursor, db) if db.queries_logged else db.make_cursor(cursor)


class _DebugCursor(CursorDebugWrapper):
    """Logs each statement with its parameters in place, as Django does on a connection that
    binds on the server: on one that binds on the client it reads the statement back from
    psycopg, which a prepared statement leaves unset."""

    def execute(self, sql: Any, params: Any = None) -> Any:
        with self.debug_sql(self.db.ops.compose_sql(sql, params), params):
            return CursorWrapper.execute(self, sql, params)


@dataclass(frozen=True)
class MoveRead:
    table: Table
    seats: list[Seat]  # users and paces loaded, each marked ``on_vacation``
    moved_since: bool  # the mover's seat moved after the version it chose on


@dataclass(frozen=True)
class _Columns:
    """One model's columns in the read's rows: where they start, and their converters."""

    model: type[Model]
    start: int
    names: tuple[str, ...]
    converters: tuple[tuple[int, tuple[Converter, ...], Col], ...]

    @property
    def end(self) -> int:
        return self.start + len(self.names)

    def instance(self, row: Sequence[Any], db: BaseDatabaseWrapper) -> Any:
        values = list(row[self.start : self.end])
        for index, functions, column in self.converters:
            for convert in functions:
                values[index] = convert(values[index], column, db)
        return self.model.from_db(db.alias, self.names, values)


def _columns(model: type[Model], alias: str, start: int, db: BaseDatabaseWrapper) -> _Columns:
    fields = model._meta.concrete_fields
    converters = []
    for index, field in enumerate(fields):
        column = field.get_col(alias)
        found = [*db.ops.get_db_converters(column), *field.get_db_converters(db)]
        if found:
            converters.append((index, tuple(found), column))
    return _Columns(model, start, tuple(f.attname for f in fields), tuple(converters))


def _quoted(field: Field[Any, Any], db: BaseDatabaseWrapper) -> str:
    assert field.column is not None  # every concrete field has its column
    return db.ops.quote_name(field.column)


def _select(alias: str, columns: _Columns, db: BaseDatabaseWrapper) -> str:
    return ", ".join(f"{alias}.{_quoted(f, db)}" for f in columns.model._meta.concrete_fields)


@dataclass(frozen=True)
class _Read:
    sql: str
    table: _Columns
    version: int  # where the locked row's version is in a row
    seen: int  # and the version the statement's snapshot saw (PostgreSQL; else the same)
    seat: _Columns
    user: _Columns
    pace: _Columns


@cache
def _read(vendor: str) -> _Read:
    """The read's statement and where each model's columns are in its rows, with their
    converters: the same for every connection to one kind of database."""
    db = connections[DEFAULT_DB_ALIAS]
    postgres = vendor == "postgresql"
    table = _columns(Table, "t", 0, db)
    seat = _columns(Seat, "s", table.end + 1, db)
    user = _columns(User, "u", seat.end, db)
    pace = _columns(PlayerPace, "p", user.end, db)
    seen = "(SELECT version FROM games_table WHERE id = %(table)s)" if postgres else "t.version"
    sql = f"""
        SELECT {_select("t", table, db)}, {seen},
            {_select("s", seat, db)}, {_select("u", user, db)}, {_select("p", pace, db)},
            EXISTS (
                SELECT 1 FROM accounts_vacation AS v
                WHERE v.user_id = s.user_id AND v.ended_at IS NULL AND v.starts_at <= %(now)s
            ),
            CASE WHEN s.user_id = %(user)s AND %(version)s < t.version THEN EXISTS (
                SELECT 1 FROM games_move AS m
                WHERE m.table_id = t.id AND m.position = s.position AND m.version > %(version)s
            ) END
        FROM games_table AS t
            LEFT JOIN games_seat AS s ON s.table_id = t.id
            LEFT JOIN accounts_user AS u ON u.id = s.user_id
            LEFT JOIN games_playerpace AS p ON p.user_id = u.id
        WHERE t.id = %(table)s
        ORDER BY s.position
        {"FOR UPDATE OF t" if postgres else ""}
    """
    return _Read(sql, table, table.names.index("version"), table.end, seat, user, pace)


def move_read(*, table_id: int, user_id: int | None, version: int | None) -> MoveRead:
    """The table locked for a move, with all the move needs; ``NotFound`` if there is none.

    ``user_id`` and ``version``: the mover and the version their move was chosen on, to tell
    whether they moved since (``MoveRead.moved_since``); None for a bot's move or a timeout.
    Inside the move's transaction.
    """
    db = connections[DEFAULT_DB_ALIAS]
    read = _read(db.vendor)
    now = db.ops.adapt_datetimefield_value(timezone.now())
    params = {"table": table_id, "user": user_id, "version": version, "now": now}
    with _cursor(db) as cursor:
        cursor.execute(read.sql, params)
        rows = cursor.fetchall()
        if rows and rows[0][read.seen] != rows[0][read.version]:
            cursor.execute(read.sql, params)  # the lock is ours now: this read is current
            rows = cursor.fetchall()
    if not rows:
        raise NotFound(_("There is no such table."))
    table: Table = read.table.instance(rows[0], db)
    seats, moved = [], False
    for row in rows:
        if row[read.seat.start] is None:
            continue  # a table without seats: its one row has the table alone
        seat: Seat = read.seat.instance(row, db)
        user = read.user.instance(row, db) if row[read.user.start] is not None else None
        pace = read.pace.instance(row, db) if user and row[read.pace.start] is not None else None
        if user is not None:
            _pace_user.remote_field.set_cached_value(user, pace)
            if pace is not None:
                _pace_user.set_cached_value(pace, user)
        _seat_user.set_cached_value(seat, user)
        _seat_table.set_cached_value(seat, table)
        seat.on_vacation = bool(row[-2])  # type: ignore[attr-defined]  # as table_seats marks it
        moved = moved or bool(row[-1])
        seats.append(seat)
    moved_since = version is not None and (version > table.version or moved)
    return MoveRead(table, seats, moved_since)


@cache
def _write(vendor: str) -> tuple[str, ...]:
    """The write's statements: one on PostgreSQL; on SQLite the same three, one by one."""
    db = connections[DEFAULT_DB_ALIAS]
    sets = ", ".join(f"{_quoted(f, db)} = %({f.name})s" for f in _TABLE_WRITES)
    update_table = f"UPDATE games_table SET {sets} WHERE id = %(table)s"
    columns = ", ".join(_quoted(f, db) for f in _MOVE_WRITES)
    values = ", ".join(f"%(move_{f.name})s" for f in _MOVE_WRITES)
    insert_move = f"INSERT INTO games_move ({columns}) VALUES ({values}) RETURNING id"
    seat_columns = [_quoted(f, db) for f in _SEAT_WRITES[1:]]
    if vendor != "postgresql":
        sets = ", ".join(f"{_quoted(f, db)} = %({f.name})s" for f in _SEAT_WRITES[1:])
        return update_table, f"UPDATE games_seat SET {sets} WHERE id = %(id)s", insert_move
    arrays = ", ".join(f"%(seat_{f.name})s::{f.db_type(db)}[]" for f in _SEAT_WRITES)
    sets = ", ".join(f"{column} = c.{column}" for column in seat_columns)
    names = ", ".join(seat_columns)
    update_seats = (
        f"UPDATE games_seat AS s SET {sets} FROM unnest({arrays}) AS c(id, {names})"
        " WHERE s.id = c.id"
    )
    return (
        f"WITH table_written AS ({update_table}), seats_written AS ({update_seats}) {insert_move}",
    )


def move_write(*, table: Table, seats: Sequence[Seat], move: Move) -> None:
    """Writes what a move changed, the game going on: the table's ``TABLE_FIELDS``, the clocks
    (``SEAT_FIELDS``) of ``seats`` (those that changed), and ``move``, appended (its ``pk`` set).
    Inside the transaction of the ``move_read`` that locked the table.

    Each value goes as the ORM's own save would send it (``pre_save``, ``get_db_prep_save``):
    the same JSON, times and durations in the database."""
    db = connections[DEFAULT_DB_ALIAS]
    statements = _write(db.vendor)
    params = {f.name: f.get_db_prep_save(getattr(table, f.attname), db) for f in _TABLE_WRITES}
    params["table"] = table.pk
    for f in _MOVE_WRITES:
        params[f"move_{f.name}"] = f.get_db_prep_save(f.pre_save(move, True), db)
    with _cursor(db) as cursor:
        if len(statements) == 1:
            for f in _SEAT_WRITES:
                params[f"seat_{f.name}"] = [
                    f.get_db_prep_save(getattr(seat, f.attname), db) for seat in seats
                ]
            cursor.execute(statements[0], params)
        else:
            update_table, update_seat, insert_move = statements
            cursor.execute(update_table, params)
            if seats:
                cursor.executemany(
                    update_seat,
                    [
                        {
                            f.name: f.get_db_prep_save(getattr(s, f.attname), db)
                            for f in _SEAT_WRITES
                        }
                        for s in seats
                    ],
                )
            cursor.execute(insert_move, params)
        (move.pk,) = cursor.fetchone()
    move._state.adding = False
    move._state.db = db.alias
