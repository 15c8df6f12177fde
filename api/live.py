"""Wakes the account streams of the players a change concerns: games' events, after commit.

Only the event's own facts travel (the table, its version, the players' ids, carried in the
event, so no query); each stream then reads what changed for its account itself.
"""

from __future__ import annotations

from channels.layers import get_channel_layer

from api.tokens import user_group
from config import layer_sends, redis_guard
from games.services.events import Event, GameEnded, TurnStarted

WOKEN = "api.woken"


def on_table_events(sender: object, events: tuple[Event, ...], **kwargs: object) -> None:
    """Subscribed to games' ``table_events`` (``ApiConfig.ready``)."""
    told: set[int] = set()
    for event in events:
        if isinstance(event, TurnStarted | GameEnded):
            told.update(event.user_ids)
    if not told:
        return
    layer = get_channel_layer()
    if layer is None:
        return
    send = layer_sends.sender(layer)
    for user_id in sorted(told):
        redis_guard.guarded(redis_guard.layer_url(), send, user_group(user_id), {"type": WOKEN})
