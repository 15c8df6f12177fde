"""A move's transaction as the ORM ran it before #31.1: the reference that the hand-written
statements (``games.services.move_statements``) are tested against, and measured against in
``bench/move_statements.py``. Swapped in with ``through_the_orm``."""

from __future__ import annotations

import pytest

from games.models import Move, Seat, Table
from games.services import bot_moves, move_statements
from games.services.move_statements import MoveRead
from games.services.table_rows import table_locked, table_seats


def orm_read(*, table_id: int, user_id: int | None, version: int | None) -> MoveRead:
    """``table_locked``, ``table_seats`` and the old ``_moved_since``: six statements' worth of
    reading in three queries."""
    table = table_locked(table_id=table_id)
    seats = table_seats(table=table)
    seat = next((s for s in seats if user_id is not None and s.user_id == user_id), None)
    moved = version is not None and (
        version > table.version
        or (
            seat is not None
            and table.moves.filter(position=seat.position, version__gt=version).exists()
        )
    )
    return MoveRead(table, seats, moved)


def orm_write(*, table: Table, seats: list[Seat], move: Move) -> None:
    """The table's save, the changed seats' (more than two in one UPDATE), the move's insert."""
    table.save(update_fields=list(move_statements.TABLE_FIELDS))
    if len(seats) > 2:
        Seat.objects.bulk_update(seats, list(move_statements.SEAT_FIELDS))
    else:
        for seat in seats:
            seat.save(update_fields=list(move_statements.SEAT_FIELDS))
    move.save()


def through_the_orm(patch: pytest.MonkeyPatch) -> None:
    """Moves, bots' moves and timeouts read and write through the ORM while ``patch`` lasts."""
    patch.setattr(move_statements, "move_read", orm_read)
    patch.setattr(bot_moves, "move_read", orm_read)
    patch.setattr(move_statements, "move_write", orm_write)
