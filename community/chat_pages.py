"""The chat's HTML: the panel under a table's board and a replay, a room's older or newer lines,
and the answer to a line written (over HTTP or the socket).

Every line is rendered through the templates, which escape it: a line is text, links included.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.translation import gettext as _

from accounts.models import User
from community.models import ChatLine, Room
from community.selectors.chat import may_read, may_write, room_lines, spectators_closed
from community.services.chat import MAX_LINE_CHARS, chat_line_post, chat_read_mark
from games.errors import GameError
from games.models import Table

CHAT_POLL_SLOWER = 4


def rooms_for(table: Table, user: Any, position: int | None, closed: bool) -> list[dict[str, Any]]:
    """The rooms this viewer reads at the table, with their latest lines and whether (and why
    not) they may write: the players' room first for a seat."""
    seated = position is not None
    rooms = []
    for room in (Room.PLAYERS, Room.TABLE):
        if not may_read(table, user, room, seated=seated):
            continue
        if not user.is_authenticated:
            why_not = _("Sign in to write in the chat.")
        else:
            why_not = may_write(table, user, room, seated=seated, closed=closed)
        page = room_lines(table.pk, room, viewer_id=user.pk)
        rooms.append({"room": room, "page": page, "why_not": why_not})
    return rooms


def table_panel(request: HttpRequest, table: Table, position: int | None) -> str:
    """The chat under the board (``games.extensions.table_panels``), in at most four queries
    however long the chat: each room's lines, whether the table's room is closed to
    spectators, and, for a seat shown lines, the mark that it read them."""
    user = request.user
    is_creator = user.is_authenticated and table.created_by_id == user.pk
    closed = spectators_closed(table)  # a spectator's field and the creator's switch
    rooms = rooms_for(table, user, position, closed)
    latest = max((room["page"].lines[-1].pk for room in rooms if room["page"].lines), default=0)
    if user.is_authenticated and position is not None and latest:
        chat_read_mark(table_id=table.pk, user=user, line_id=latest)
    context = {
        "table": table,
        "rooms": rooms,
        "viewer_id": user.pk if user.is_authenticated else None,
        "max_chars": MAX_LINE_CHARS,
        "is_creator": is_creator,
        "spectators_closed": closed,
        # While the socket is closed, a room asks for new lines a few times slower than the
        # board polls (static/js/community/chat.js skips the poll while the socket is open).
        "poll_ms": settings.TABLE_POLL_MS * CHAT_POLL_SLOWER,
    }
    return render_to_string("community/chat/panel.html", context, request=request)


def replay_panel(request: HttpRequest, table: Table) -> str:
    """A finished game's chat, both rooms, to read (``games.extensions.replay_panels``)."""
    viewer_id = request.user.pk
    pages = [room_lines(table.pk, room, viewer_id=viewer_id) for room in (Room.PLAYERS, Room.TABLE)]
    if not any(page.lines for page in pages):
        return ""
    rooms = [{"room": page.room, "page": page, "why_not": ""} for page in pages]
    context = {
        "table": table,
        "rooms": rooms,
        "viewer_id": request.user.pk if request.user.is_authenticated else None,
        "read_only": True,
    }
    return render_to_string("community/chat/panel.html", context, request=request)


def lines_html(
    table: Table, user: Any, room: str, lines: list[ChatLine], more_before: int | None
) -> str:
    context = {
        "table": table,
        "lines": lines,
        "more_before": more_before,
        "room": room,
        "viewer_id": user.pk if user.is_authenticated else None,
    }
    return render_to_string("community/chat/lines.html", context)


@dataclass(frozen=True)
class Answer:
    html: str
    status: int


def post_answer(
    *, table_id: int, user: User | None, room: object, text: object, live: bool
) -> Answer:
    """Posts a line; the answer for the writer's page: the reason of a refusal in the room's
    status line (its text kept in the field), or the field emptied. Over HTTP the new line comes
    with it; over the socket it comes, as to everyone, from the room's group."""
    room_name = room if room in Room.values else ""
    if user is None:
        return _status(room_name, _("Sign in to write in the chat."), 403)
    try:
        line = chat_line_post(table_id=table_id, user=user, room=str(room), text=text)
    except GameError as exc:
        return _status(room_name, exc.message, exc.status)
    html = render_to_string(
        "community/chat/posted.html",
        {"line": line, "room": line.room, "viewer_id": user.pk, "with_line": not live},
    )
    return Answer(html, 200)


def _status(room: str, message: str, status: int) -> Answer:
    html = render_to_string("community/chat/status.html", {"room": room, "message": message})
    return Answer(html, status)
