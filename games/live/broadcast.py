"""Tells the open pages of a table that it changed.

The message carries only the table and its version, never a seat's data: each
open page (its websocket consumer, or its poll) then fetches its own seat's view.
If the channel layer is down, pages still catch up by polling.

A page that made the move already has the new board (the answer to its post), so
the message names that page (``origin``, a random id the page was given) and its
own socket skips the render; the player's other pages and everyone else get theirs.
"""

from __future__ import annotations

from channels.layers import get_channel_layer

from config import layer_sends, redis_guard
from games.services.events import Event, TableChanged

CHANGED = "table.changed"


def group_name(table_id: int) -> str:
    """Every open page of the table: nothing sent there carries a seat's private data."""
    return f"table-{table_id}"


def players_group_name(table_id: int) -> str:
    """The seated people's open pages of the table (the players' chat room): a spectator's
    socket never joins it."""
    return f"table-{table_id}-players"


def user_group_name(user_id: int) -> str:
    """A player's own open pages (their notifications): only their own sockets join it."""
    return f"user-{user_id}"


def changed_message(table_id: int, version: int, origin: str = "") -> dict[str, str | int]:
    message: dict[str, str | int] = {"type": CHANGED, "table": table_id, "version": version}
    if origin:
        message["origin"] = origin
    return message


def broadcast_table_changed(table_id: int, version: int, origin: str = "") -> None:
    """Skipped while the channel layer's Redis fails (its breaker, ``config.redis_guard``): a
    hung Redis costs one move one socket timeout, once per pause, and pages poll meanwhile."""
    layer = get_channel_layer()
    if layer is None:
        return
    message = changed_message(table_id, version, origin)
    send = layer_sends.sender(layer)
    redis_guard.guarded(redis_guard.layer_url(), send, group_name(table_id), message)


# The sender of events whose change the table's pages were told of already: a socket's move,
# told from its consumer's own event loop (``table_changed_push``).
PUSHED = "pushed"


async def table_changed_push(events: tuple[Event, ...]) -> None:
    """Tells the open pages of each change, from an event loop: no thread waits on the send."""
    layer = get_channel_layer()
    if layer is None:
        return
    for event in events:
        if isinstance(event, TableChanged):
            message = changed_message(event.table_id, event.version, event.origin)
            group = group_name(event.table_id)
            await redis_guard.aguarded(redis_guard.layer_url(), layer.group_send, group, message)


def on_table_events(sender: object, events: tuple[Event, ...], **kwargs: object) -> None:
    """Subscribed to ``games.services.events.table_events``: tells the open pages of each
    change, unless its sender did (``PUSHED``)."""
    if sender == PUSHED:
        return
    for event in events:
        if isinstance(event, TableChanged):
            broadcast_table_changed(event.table_id, event.version, event.origin)
