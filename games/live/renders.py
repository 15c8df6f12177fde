"""One render per web process and version for the pushes (#31.2).

A move's push reaches every open page of the table. Each page's socket used to read the table
row and draw its board: a thousand pages at a table, a thousand queries and private parts for
one move. Here the first socket of the process to handle a version reads the row and draws its
audience's board; every other socket of the process at that version finds the row, and the
board of its own audience, in this process's memory: no query, no thread hop, no render.

A board depends on the table at its version, the audience (a seat, or a spectator) and the
language alone, so one entry serves every page of that audience in that language. Entries
never change once made (their key names the version); the oldest are dropped first.
"""

from __future__ import annotations

from games.boards import Audience, Board
from games.live.recent import Recent
from games.models import Table

BoardKey = tuple[int, int, str, Audience]  # table, version, language, audience

TABLES_KEPT = 1024  # the latest row read of each table with open pages in this process
BOARDS_KEPT = 8192  # a table's seats and spectators, in each language, at its latest versions


_tables: Recent[int, Table] = Recent(TABLES_KEPT)
_boards: Recent[BoardKey, Board] = Recent(BOARDS_KEPT)


def table_at(table_id: int, version: int) -> Table | None:
    """The row last read of the table, if it is at ``version`` or newer (never changed after:
    it is only read)."""
    table = _tables.get(table_id)
    return table if table is not None and table.version >= version else None


def table_keep(table: Table) -> None:
    """Keeps a row just read, unless a newer one is kept already."""
    kept = _tables.get(table.pk)
    if kept is None or kept.version < table.version:
        _tables.put(table.pk, table)


def board_at(table_id: int, version: int, language: str, audience: Audience) -> Board | None:
    """The board drawn for ``audience`` in ``language`` at exactly that version, if any."""
    return _boards.get((table_id, version, language, audience))


def board_keep(table_id: int, language: str, audience: Audience, board: Board) -> None:
    _boards.put((table_id, board.version, language, audience), board)


def forget() -> None:
    """Empties this process's rows and boards (for a test that changes a table without a new
    version, which the site never does)."""
    _tables.clear()
    _boards.clear()
