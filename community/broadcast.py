"""What community sends open pages after a commit (``games.live.broadcast`` names the groups).

- A stored chat line, to its room's group on the table's socket: the table's group for the
  table's room, the players' group for the players' room, which only a seat's socket joins
  (``community.live``).
- A player's bell count, to their own group, which only their sockets join: the table page's
  socket and the small socket of every other page (``community.consumers``).
"""

from __future__ import annotations

from typing import Any

from channels.layers import get_channel_layer

from accounts.models import Block, User
from community.models import ChatLine, Room
from config import layer_sends, redis_guard
from games.extensions import extension_event
from games.live.broadcast import group_name, players_group_name, user_group_name

LINE = "chat.line"


def line_data(line: ChatLine) -> dict[str, Any]:
    """What a page needs to show a line: no more than anyone in its room may read."""
    return {
        "id": line.pk,
        "room": line.room,
        "table": line.table_id,
        "author_id": line.author_id,
        "author_name": line.author.public_name,
        "text": line.text,
        "created_at": line.created_at.isoformat(),
    }


def hidden_from(line: ChatLine) -> list[int]:
    """The readers who blocked this line's author from their chat: their pages drop it."""
    return list(
        Block.objects.filter(blocked_id=line.author_id, hide_lines=True).values_list(
            "blocker_id", flat=True
        )
    )


def line_posted(line: ChatLine) -> None:
    """Sends a stored line to its room's open pages (skipped while the channel layer's Redis
    fails: the pages poll their chat meanwhile)."""
    layer = get_channel_layer()
    if layer is None:
        return
    group = (
        players_group_name(line.table_id)
        if line.room == Room.PLAYERS
        else group_name(line.table_id)
    )
    send = layer_sends.sender(layer)
    message = extension_event(LINE, line=line_data(line), hidden_from=hidden_from(line))
    redis_guard.guarded(redis_guard.layer_url(), send, group, message)


NOTES = "notes.count"


def notes_changed(user_ids: list[int], kind: str = "") -> None:
    """Sends each player's open pages their bell's new count (and, for something new, its
    kind, which the page announces): one query for the counts, one group message a player."""
    layer = get_channel_layer()
    if layer is None or not user_ids:
        return
    counts = User.objects.filter(pk__in=user_ids).values_list("pk", "notes_unread")
    send = layer_sends.sender(layer)
    for user_id, count in counts:
        message = extension_event(NOTES, count=count, new=kind)
        redis_guard.guarded(redis_guard.layer_url(), send, user_group_name(user_id), message)


HIDDEN = "chat.hidden"


def line_hidden(line: ChatLine) -> None:
    """Tells the pages of the line's room to drop it (a moderator hid it)."""
    layer = get_channel_layer()
    if layer is None:
        return
    group = (
        players_group_name(line.table_id)
        if line.room == Room.PLAYERS
        else group_name(line.table_id)
    )
    message = extension_event(HIDDEN, line={"id": line.pk, "table": line.table_id})
    redis_guard.guarded(redis_guard.layer_url(), layer_sends.sender(layer), group, message)
