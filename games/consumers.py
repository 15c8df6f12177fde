"""The table's websocket: when the table changes, send this connection its own board.

The group message carries only the version; the board each socket receives is
rendered from its own user's seat view, exactly as the page's HTTP fragment.
"""

from __future__ import annotations

import zoneinfo
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils import timezone, translation

from games import live, selectors
from games.models import Seat, Table
from games.views import board_context


class TableConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        self.page_id = query.get("page", [""])[0][: live.PAGE_ID_LENGTH]
        self.sent_version = -1  # the version of the last board this socket sent
        if not await self._table_exists():
            await self.close()
            return
        self.group = live.group_name(self.table_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self._touch_presence()

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Clients send a heartbeat now and then: it keeps their presence fresh."""
        await self._touch_presence()

    async def table_changed(self, event: dict[str, Any]) -> None:
        if self.page_id and event.get("origin") == self.page_id:
            return  # this page made the move: its post's answer was the new board
        if event.get("version", 0) <= self.sent_version:
            return  # a board rendered since (from the table as it was then) is newer
        html, version = await self._render_board()
        if html:
            self.sent_version = version
            await self.send(text_data=html)

    @database_sync_to_async
    def _table_exists(self) -> bool:
        return Table.objects.filter(pk=self.table_id).exists()

    @database_sync_to_async
    def _touch_presence(self) -> None:
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            Seat.objects.filter(table_id=self.table_id, user=user).update(seen_at=timezone.now())

    @database_sync_to_async
    def _render_board(self) -> tuple[str, int]:
        """This socket's board of the table as it is now, and its version."""
        table = Table.objects.filter(pk=self.table_id).first()
        if table is None:
            return "", -1
        user = self.scope.get("user")
        page = selectors.table_page_for(table, user)
        with translation.override(self._language()), timezone.override(self._zone()):
            html = render_to_string("games/partials/board.html", board_context(page, user=user))
        return html, table.version

    def _zone(self) -> zoneinfo.ZoneInfo:
        """Clocks and deadlines in the player's own time zone, as on the HTTP page."""
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            return user.zone
        return zoneinfo.ZoneInfo("UTC")

    def _language(self) -> str:
        """The page's language, as for HTTP: the player's choice, else the cookie or browser's."""
        user = self.scope.get("user")
        if user is not None and user.is_authenticated and user.language:
            return user.language
        request = HttpRequest()
        request.COOKIES = self.scope.get("cookies", {})
        accept = dict(self.scope.get("headers", [])).get(b"accept-language", b"")
        request.META["HTTP_ACCEPT_LANGUAGE"] = accept.decode("latin-1")
        return translation.get_language_from_request(request)
