"""Players' records: each finished game counted once in each of its players' rows
(``PlayerRecord``), in the transaction of the move that ended it.

A seat alone in first place won; a first place shared is a draw; any other place lost. A game
played alone is counted apart, by its level (``Outcome.details["solo"]``): first place is a
win against the game. Bots' seats have no player and no record.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from django.db import connection

from games.models import PlayerRecord, Seat, Table

# One statement for every player of a game that ended: a row is added, or its counts grow.
# PostgreSQL and SQLite both read this upsert.
_ADD = (
    "INSERT INTO {table} (user_id, game, solo, level, wins, draws, losses) VALUES {values}"
    " ON CONFLICT (user_id, game, solo, level) DO UPDATE SET"
    " wins = {table}.wins + excluded.wins, draws = {table}.draws + excluded.draws,"
    " losses = {table}.losses + excluded.losses"
)


def _solo_level(table: Table) -> str:
    """The level a game played alone was played at, as ``PlayerRecord.level`` keeps it."""
    details: dict[str, Any] = (table.outcome or {}).get("details") or {}
    return json.dumps((details.get("solo") or {}).get("level"), sort_keys=True)


def records_add(*, table: Table, seats: Sequence[Seat]) -> None:
    """Counts ``table``'s game, which has just ended (its seats ranked), in its players'
    records. One statement; the rows in player order, as the ratings lock theirs."""
    firsts = sum(1 for seat in seats if seat.rank == 0)
    solo = table.num_seats == 1
    level = _solo_level(table) if solo else ""
    rows: list[tuple[Any, ...]] = []
    for seat in sorted(seats, key=lambda seat: seat.user_id or 0):
        if seat.user_id is None or seat.rank is None:
            continue
        first = seat.rank == 0
        win, draw, loss = int(first and firsts == 1), int(first and firsts > 1), int(not first)
        rows.append((seat.user_id, table.game, solo, level, win, draw, loss))
    if not rows:
        return
    values = ", ".join(["(%s, %s, %s, %s, %s, %s, %s)"] * len(rows))
    with connection.cursor() as cursor:
        cursor.execute(
            _ADD.format(table=PlayerRecord._meta.db_table, values=values),
            [value for row in rows for value in row],
        )
