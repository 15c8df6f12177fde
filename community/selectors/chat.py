"""Reading a table's chat: who may read and write each room, a room's lines (the latest, or
those before one), and the unread lines of a player's tables."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser
from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _

from accounts.models import User
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
    if not tables:
        return {}
    last_read = ChatRead.objects.filter(table=OuterRef("table_id"), user=user).values(
        "last_line_id"
    )[:1]
    counts = (
        ChatLine.objects.filter(table_id__in=[t.pk for t in tables], hidden_at__isnull=True)
        .exclude(author=user)
        .exclude(author_id__in=hidden_authors(user.pk))
        .filter(pk__gt=Coalesce(Subquery(last_read), 0))
        .values("table_id")
        .annotate(n=Count("id"))
    )
    return {row["table_id"]: row["n"] for row in counts}
