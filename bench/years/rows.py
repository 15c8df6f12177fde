"""Rows written by SQL, a statement for many: ``INSERT ... SELECT`` with every column a model has,
those the generator does not say taking the model's own default, so that a column added to a
model later gets its default here too (or, with none, stops the generator, naming it)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from django.db import connection
from django.db.models import Model
from psycopg.types.json import Jsonb


def insert_select(
    model: type[Model],
    values: Mapping[str, str],
    source: str,
    params: Mapping[str, Any] | None = None,
) -> int:
    """``INSERT INTO <model's table> (<its columns>) SELECT <values> <source>``: ``values`` maps
    a column to an SQL expression over ``source`` (``FROM ...``); a column left out takes the
    field's default (its primary key: the sequence's next). Named parameters (``%(name)s``) in
    both; a literal percent sign is written ``%%``. Returns the rows inserted."""
    meta = model._meta
    columns, expressions = [], []
    bound = dict(params or {})
    for field in meta.concrete_fields:
        column = field.column
        if column in values:
            columns.append(column)
            expressions.append(values[column])
        elif field.primary_key:
            continue
        elif field.has_default() or field.get_default() is not None:  # a text field's ""
            columns.append(column)
            expressions.append(f"%(default_{column})s")
            bound[f"default_{column}"] = field.get_db_prep_save(field.get_default(), connection)
        elif field.null:
            continue
        else:
            raise ValueError(f"{meta.label}.{field.name} has no default: say its value")
    unknown = set(values) - {field.column for field in meta.concrete_fields}
    if unknown:
        raise ValueError(f"{meta.label} has no column {sorted(unknown)}")
    quoted = ", ".join(connection.ops.quote_name(column) for column in columns)
    sql = (
        f"INSERT INTO {connection.ops.quote_name(meta.db_table)} ({quoted}) "
        f"SELECT {', '.join(expressions)} {source}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, bound)
        return cursor.rowcount


def run(sql: str, params: Mapping[str, Any] | None = None) -> int:
    """One statement (named parameters, if any); the rows it touched."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params or None)
        return cursor.rowcount


def value(sql: str, params: Mapping[str, Any] | None = None) -> Any:
    """The first column of the first row of ``sql``."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params or None)
        row = cursor.fetchone()
    return row[0] if row else None


def copy_rows(table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """``COPY table (columns) FROM STDIN``: a dict goes to a ``jsonb`` column, a list to an
    array, the rest as it is."""
    with connection.cursor() as cursor:
        raw = cursor.cursor  # psycopg's own, for COPY
        with raw.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row([Jsonb(v) if isinstance(v, dict) else v for v in row])


def max_id(model: type[Model]) -> int:
    """The highest primary key of ``model``'s table, 0 for an empty one."""
    return int(value(f"SELECT coalesce(max(id), 0) FROM {model._meta.db_table}"))


def sequence_catch_up(model: type[Model]) -> None:
    """The table's id sequence moved past the ids the generator wrote itself."""
    table = model._meta.db_table
    run(
        f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
        f"(SELECT coalesce(max(id), 1) FROM {table}))"
    )


@contextmanager
def indexes_later(*models: type[Model]) -> Iterator[None]:
    """Drops the tables' indexes, unique constraints and primary keys (but one that a foreign
    key refers to) for the time of a load, and builds them again after: one sort each instead
    of an insertion a row."""
    kept: list[str] = []
    for model in models:
        table = model._meta.db_table
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT c.conname, pg_get_constraintdef(c.oid) FROM pg_constraint c"
                " WHERE c.conrelid = %s::regclass AND (c.contype = 'u' OR c.contype = 'p'"
                " AND NOT EXISTS (SELECT 1 FROM pg_constraint f"
                " WHERE f.contype = 'f' AND f.confrelid = c.conrelid))",
                [table],
            )
            constraints = cursor.fetchall()
            cursor.execute(
                "SELECT i.indexname, i.indexdef FROM pg_indexes i"
                " WHERE i.tablename = %s AND NOT EXISTS (SELECT 1 FROM pg_constraint c"
                " WHERE c.conname = i.indexname AND c.contype IN ('p', 'u'))",
                [table],
            )
            indexes = cursor.fetchall()
        for name, definition in constraints:
            run(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
            kept.append(f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}')
        for name, definition in indexes:
            run(f'DROP INDEX "{name}"')
            kept.append(definition)
    yield
    for statement in kept:
        run(statement)
