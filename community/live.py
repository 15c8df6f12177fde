"""The chat on the table's socket (``games.extensions``): a line goes to its room's group after
the commit, and each open page renders it in its own language; a line written over the socket is
posted through the same service as over HTTP.

The players' room travels only on the players' group (``players_group_name``), which a socket
joins only for a seat: a spectator's page never receives it.
"""

from __future__ import annotations

import datetime as dt
from collections import OrderedDict
from functools import lru_cache
from typing import Any

from django.template.loader import render_to_string
from django.utils import translation

from community.models import Room
from games.extensions import SocketPage
from games.live.broadcast import players_group_name, user_group_name
from games.live.threads import on_database


def groups_for(page: SocketPage) -> list[str]:
    """A seat's socket joins the players' room too."""
    return [players_group_name(page.table_id)] if page.position is not None else []


# The lines this web process rendered lately, by line, language and reader: a line pushed to
# many pages of the process is rendered once for each kind of reader, not once a page.
_RENDERED: OrderedDict[tuple[object, ...], str] = OrderedDict()
RENDERED_KEPT = 512


def render_line(page: SocketPage, data: dict[str, Any]) -> str:
    """The line as this page shows it. Pages differ only in language and in whether their
    reader wrote it, may report it (signed in) or only reads it, so the HTML is shared by all
    pages alike. Rendered in the event loop: the template reads no database, and a small
    render costs less than a hop to a thread."""
    author = data["author_id"]
    reader = "author" if page.user_id == author else ("member" if page.user_id else "visitor")
    # The time and name too: a database rolled back (tests, a restore) may give an id again.
    key = (data["id"], data["created_at"], data["author_name"], page.language, reader)
    html = _RENDERED.get(key)
    if html is None:
        line = {**data, "created_at": dt.datetime.fromisoformat(data["created_at"])}
        with translation.override(page.language):
            html = render_to_string(
                "community/chat/pushed_line.html",
                {"line": line, "viewer_id": page.user_id, "room": data["room"]},
            )
        _RENDERED[key] = html
        if len(_RENDERED) > RENDERED_KEPT:
            _RENDERED.popitem(last=False)
    return html


async def on_line(page: SocketPage, event: dict[str, Any]) -> str:
    data = event.get("line")
    if not isinstance(data, dict) or data.get("table") != page.table_id:
        return ""
    if data.get("room") == Room.PLAYERS and page.position is None:
        return ""  # never: a spectator's socket is not in the players' group
    if page.user_id is not None and page.user_id in event.get("hidden_from", ()):
        return ""  # its reader blocked the author from their chat
    return render_line(page, data)


async def on_chat_message(page: SocketPage, message: dict[str, Any]) -> str:
    """A line sent over the socket: ``{"chat_text": ..., "room": ...}``."""
    answer: str = await on_database(post_over_socket)(page, message)
    return answer


def post_over_socket(page: SocketPage, message: dict[str, Any]) -> str:
    from accounts.models import User
    from community.chat_pages import post_answer

    user = User.objects.filter(pk=page.user_id).first() if page.user_id else None
    with translation.override(page.language):
        return post_answer(
            table_id=page.table_id,
            user=user,
            room=message.get("room"),
            text=message.get("chat_text"),
            live=True,
        ).html


async def on_chat_seen(page: SocketPage, message: dict[str, Any]) -> str:
    """The page showed new lines to its reader (static/js/community/chat.js, at most every few
    seconds): the lobby stops counting them."""
    if page.user_id is not None and page.position is not None:
        await on_database(mark_seen)(page)
    return ""


def mark_seen(page: SocketPage) -> None:
    from accounts.models import User
    from community.services.chat import chat_read_mark

    user = User.objects.filter(pk=page.user_id).first() if page.user_id is not None else None
    if user is not None:
        chat_read_mark(table_id=page.table_id, user=user)


def user_groups_for(page: SocketPage) -> list[str]:
    """A signed-in viewer's socket carries their notifications too (one socket per page)."""
    return [user_group_name(page.user_id)] if page.user_id is not None else []


@lru_cache(maxsize=512)
def render_bell(language: str, count: int, new: str) -> str:
    """The bell and what is new, swapped by id into the header of the page that gets them (the
    same for every page with this language, count and news: rendered once a process)."""
    from accounts.notify import NoteKind

    label = str(NoteKind(new).label) if new in NoteKind.values else ""
    with translation.override(language):
        return render_to_string(
            "community/notes/bell.html", {"count": count, "oob": True}
        ) + render_to_string("community/notes/news.html", {"new": label, "oob": True})


async def on_notes(page: SocketPage, event: dict[str, Any]) -> str:
    """The table socket's share: the bell of the player whose page it is."""
    return await on_notes_for(page.language, event)


async def on_notes_for(language: str, event: dict[str, Any]) -> str:
    count = event.get("count")
    if not isinstance(count, int):
        return ""
    return render_bell(language, count, str(event.get("new", "")))


async def on_hidden(page: SocketPage, event: dict[str, Any]) -> str:
    """A moderator hid a line: the page drops it (htmx's out-of-band delete)."""
    data = event.get("line")
    if not isinstance(data, dict) or data.get("table") != page.table_id:
        return ""
    line_id = data.get("id")
    if not isinstance(line_id, int):
        return ""
    return f'<li id="chat-line-{line_id}" hx-swap-oob="delete"></li>'
