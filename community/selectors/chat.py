"""Reading a table's chat: who may read and write each room, a room's lines (the latest, or
those before one), and the unread lines of a player's tables."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from accounts.models import Block, User
from accounts.relations import hidden_authors
from community.models import ChatLine, ChatRead, Room, TableChat
from games.models import Seat, Table

PAGE_LINES = 50  # the lines a room shows with the page; older ones come 50 at a time on scroll


def is_seated(table: Table, user: User | AnonymousUser) -> bool:
    return bool(
        user.is_authenticated and Seat.objects.filter(table=table, user_id=user.pk).exists()
    )


def may_read(
    table: Table, user: User | AnonymousUser, room: str, seated: bool | None = None
) -> bool:
    """The table's room is everyone's; the players' room is the seated people's while the game
    is open or runs, and everyone's once it has ended (it shows in the replay)."""
    if room == Room.TABLE:
        return True
    if room != Room.PLAYERS:
        return False
    if table.is_finished:
        return True
    return is_seated(table, user) if seated is None else seated


def spectators_closed(table: Table) -> bool:
    return TableChat.objects.filter(table=table, spectators_closed=True).exists()


def may_write(
    table: Table,
    user: User,
    room: str,
    seated: bool | None = None,
    closed: bool | None = None,
) -> str:
    """Why ``user`` cannot write in this room now, or "" if they can (``seated`` and
    ``closed``, when the caller knows them, spare a query each)."""
    seated = is_seated(table, user) if seated is None else seated
    if room == Room.PLAYERS:
        return "" if seated else _("Only the players at this table write in the players' room.")
    if seated:
        return ""
    if spectators_closed(table) if closed is None else closed:
        return _("The table's creator has closed this room to spectators.")
    return ""


@dataclass(frozen=True)
class RoomLines:
    room: str
    lines: list[ChatLine]  # oldest first
    more_before: int | None  # the id to ask for older lines before, or None: no older lines


def visible_lines(table_id: int, room: str, viewer_id: int | None) -> QuerySet[ChatLine]:
    """A room's lines as ``viewer_id`` reads them: without those of the players they blocked
    from their chat (a subquery: no query more)."""
    lines = ChatLine.objects.filter(
        table_id=table_id, room=room, hidden_at__isnull=True
    ).select_related("author")
    if viewer_id is not None:
        lines = lines.exclude(author_id__in=hidden_authors(viewer_id))
    return lines


def room_lines(
    table_id: int, room: str, before: int | None = None, viewer_id: int | None = None
) -> RoomLines:
    """The latest ``PAGE_LINES`` lines of a room (before line ``before``, if given) that
    ``viewer_id`` reads, in one query however long the chat: one more line is read to know
    whether older ones remain."""
    lines = visible_lines(table_id, room, viewer_id)
    if before is not None:
        lines = lines.filter(pk__lt=before)
    newest_first = list(lines.order_by("-id")[: PAGE_LINES + 1])
    shown = newest_first[:PAGE_LINES][::-1]
    more = shown[0].pk if len(newest_first) > PAGE_LINES else None
    return RoomLines(room=room, lines=shown, more_before=more)


def unread_lines(user: User, tables: list[Table]) -> dict[int, int]:
    """How many lines others wrote at each of ``user``'s tables (they sit at every one: both
    rooms are theirs to read) since they last read its chat, not counting the lines of players
    they blocked from their chat: one query for all the tables."""
    counts = unread_lines_of_players([(user.pk, table.pk) for table in tables])
    return {table_id: count for (_user_id, table_id), count in counts.items()}


# Lines others wrote at a player's table since the last they read there, but for those of the
# players they hide; PostgreSQL and SQLite both read it (a VALUES list names its columns
# column1, column2 in both).
_UNREAD = """
SELECT p.column1, p.column2, count(*)
FROM (VALUES {pairs}) AS p
JOIN {line} l ON l.table_id = p.column2
LEFT JOIN {read} r ON r.table_id = p.column2 AND r.user_id = p.column1
WHERE l.hidden_at IS NULL AND l.author_id <> p.column1 AND l.id > COALESCE(r.last_line_id, 0)
  AND NOT EXISTS (
    SELECT 1 FROM {block} b
    WHERE b.blocker_id = p.column1 AND b.blocked_id = l.author_id AND b.hide_lines
  )
GROUP BY p.column1, p.column2
"""


def unread_lines_of_players(pairs: list[tuple[int, int]]) -> dict[tuple[int, int], int]:
    """``unread_lines`` for many players at once: for each (player, table) of ``pairs``, the
    player seated there, how many lines wait (none: left out). One query for them all."""
    if not pairs:
        return {}
    sql = _UNREAD.format(
        pairs=", ".join(["(%s, %s)"] * len(pairs)),
        line=ChatLine._meta.db_table,
        read=ChatRead._meta.db_table,
        block=Block._meta.db_table,
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [value for pair in pairs for value in pair])
        return {(int(user_id), int(table_id)): int(n) for user_id, table_id, n in cursor}
