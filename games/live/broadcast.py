"""Tells the open pages of a table that it changed.

The message carries only the table and its version, never a seat's data: each
open page (its websocket consumer, or its poll) then fetches its own seat's view.
If the channel layer is down, pages still catch up by polling.

A page that made the move already has the new board (the answer to its post), so
the message names that page (``origin``, a random id the page was given) and its
own socket skips the render; the player's other pages and everyone else get theirs.
"""

from __future__ import annotations

import logging
import time

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings

from games.services.events import Event, TableChanged

logger = logging.getLogger(__name__)

CHANGED = "table.changed"


def group_name(table_id: int) -> str:
    return f"table-{table_id}"


def changed_message(table_id: int, version: int, origin: str = "") -> dict:
    message = {"type": CHANGED, "table": table_id, "version": version}
    if origin:
        message["origin"] = origin
    return message


# After a failed broadcast this process stops trying for a while (settings
# REDIS_PAUSE_SECONDS): a hung Redis costs a move one socket timeout, and no move should wait
# that long each time (pages poll meanwhile).
_paused_until = 0.0


def broadcast_table_changed(table_id: int, version: int, origin: str = "") -> None:
    global _paused_until
    layer = get_channel_layer()
    if layer is None or time.monotonic() < _paused_until:
        return
    try:
        message = changed_message(table_id, version, origin)
        async_to_sync(layer.group_send)(group_name(table_id), message)
    except Exception:  # the layer (Redis) is down: pages fall back to polling
        _paused_until = time.monotonic() + settings.REDIS_PAUSE_SECONDS
        logger.warning("could not broadcast a change of table %s", table_id, exc_info=True)


def on_table_events(sender: object, events: tuple[Event, ...], **kwargs: object) -> None:
    """Subscribed to ``games.services.events.table_events``: tells the open pages of each change."""
    for event in events:
        if isinstance(event, TableChanged):
            broadcast_table_changed(event.table_id, event.version, event.origin)
