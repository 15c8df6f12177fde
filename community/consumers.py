"""The small socket of every page but a table's (whose own socket carries the same): a signed-in
player's notifications, their bell's count swapped into the header as it changes.

It joins the player's own group alone (``games.live.broadcast.user_group_name``), takes nothing
from the page but a ping, and closes at once for a visitor who is not signed in.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer

from community import live
from community.broadcast import NOTES
from games.live.broadcast import user_group_name
from games.live.consumers import LIVE_UNAVAILABLE, page_language

logger = logging.getLogger(__name__)


class NotesConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close()
            return
        self.group = user_group_name(user.pk)
        self.language = page_language(self.scope, user)
        await self.accept()
        try:
            await self.channel_layer.group_add(self.group, self.channel_name)
        except Exception as exc:
            logger.info("no live notifications for a socket: %r", exc)
            await self.close(code=LIVE_UNAVAILABLE)
            return
        self.joined = True

    async def disconnect(self, code: int) -> None:
        if getattr(self, "joined", False):
            with contextlib.suppress(Exception):
                await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """A ping keeps the membership (a group's expires in the channel layer)."""
        if getattr(self, "joined", False):
            with contextlib.suppress(Exception):
                await self.channel_layer.group_add(self.group, self.channel_name)

    async def extension_event(self, event: dict[str, Any]) -> None:
        if event.get("kind") == NOTES:
            html = await live.on_notes_for(self.language, event)
            if html:
                await self.send(text_data=html)

    async def live_unavailable(self, event: dict[str, Any]) -> None:
        await self.close(code=LIVE_UNAVAILABLE)
