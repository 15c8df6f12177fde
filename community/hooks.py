"""The chat, plugged into games' pages and socket (games/extensions.py)."""

from __future__ import annotations

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import ngettext

from accounts.closing import closing_step_register
from accounts.export import export_section_register
from accounts.models import User
from community import broadcast, chat_pages, jobs, live, people_pages
from community.selectors.account_export import community_export
from community.selectors.chat import unread_lines, unread_lines_of_players
from community.services.account_closing import player_community_close
from community.services.notes import notes_read, sweep_note_mails
from community.services.push import sweep_pushes
from games import extensions
from games.jobs import embedded
from games.models import Table
from games.services.events import table_events


def unread_notes(user: User, tables: list[Table]) -> dict[int, str]:
    """The lobby's "your tables": how many chat lines wait at each, in one query."""
    return {
        table_id: render_to_string("community/chat/unread.html", {"count": count})
        for table_id, count in unread_lines(user, tables).items()
    }


def unread_lines_said(players: list[tuple[User, list[Table]]]) -> dict[tuple[int, int], str]:
    """The reminder e-mails' rows: how many chat lines wait at each player's tables, in plain
    words in the player's language; one query for all the players."""
    language = {user.pk: user.language or settings.LANGUAGE_CODE for user, _tables in players}
    pairs = [(user.pk, table.pk) for user, tables in players for table in tables]
    said = {}
    for (user_id, table_id), count in unread_lines_of_players(pairs).items():
        with translation.override(language[user_id]):
            said[(user_id, table_id)] = ngettext(
                "%(count)d unread chat line", "%(count)d unread chat lines", count
            ) % {"count": count}
    return said


def table_opened(user: User, table: Table) -> None:
    """The player opened the table: what they were told of it is read."""
    notes_read(user=user, table_id=table.pk)


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
    extensions.socket_events[broadcast.HIDDEN] = live.on_hidden
    # Notifications: made from games' events, read when the table opens, the bell on its socket.
    extensions.table_opened.append(table_opened)
    extensions.reminder_notes.append(unread_lines_said)
    extensions.socket_groups.append(live.user_groups_for)
    extensions.socket_events[broadcast.NOTES] = live.on_notes
    table_events.connect(jobs.on_table_events, dispatch_uid="community-notes")
    embedded.extra += [sweep_note_mails, sweep_pushes]
    # A player's data: their chat and notifications in the export, and when the account closes.
    export_section_register("community", community_export)
    closing_step_register(player_community_close)
