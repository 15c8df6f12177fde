"""Tells the open pages of a table that it changed.

The message carries only the table and its version, never a seat's data: each
open page (its websocket consumer, or its poll) then fetches its own seat's view.
If the channel layer is down, pages still catch up by polling.
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)

CHANGED = "table.changed"


def group_name(table_id: int) -> str:
    return f"table-{table_id}"


def changed_message(table_id: int, version: int) -> dict:
    return {"type": CHANGED, "table": table_id, "version": version}


def broadcast_table_changed(table_id: int, version: int) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group_name(table_id), changed_message(table_id, version))
    except Exception:  # the layer (Redis) is down: pages fall back to polling
        logger.warning("could not broadcast a change of table %s", table_id, exc_info=True)


def on_commit_table_changed(table_id: int, version: int) -> None:
    transaction.on_commit(lambda: broadcast_table_changed(table_id, version))
