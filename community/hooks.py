"""The chat, plugged into games' pages and socket (games/extensions.py)."""

from __future__ import annotations

from django.template.loader import render_to_string

from accounts.models import User
from community import broadcast, chat_pages, live, people_pages
from community.selectors.chat import unread_lines
from games import extensions
from games.models import Table


def unread_notes(user: User, tables: list[Table]) -> dict[int, str]:
    """The lobby's "your tables": how many chat lines wait at each, in one query."""
    return {
        table_id: render_to_string("community/chat/unread.html", {"count": count})
        for table_id, count in unread_lines(user, tables).items()
    }


def register() -> None:
    if chat_pages.table_panel in extensions.table_panels:
        return
    extensions.table_panels.append(people_pages.table_panel)  # a finished table's only
    extensions.table_panels.append(chat_pages.table_panel)
    extensions.replay_panels.append(chat_pages.replay_panel)
    extensions.profile_panels.append(people_pages.profile_panel)
    extensions.row_notes.append(unread_notes)
    extensions.socket_groups.append(live.groups_for)
    extensions.socket_messages["chat_text"] = live.on_chat_message
    extensions.socket_messages["chat_seen"] = live.on_chat_seen
    extensions.socket_events[broadcast.LINE] = live.on_line
