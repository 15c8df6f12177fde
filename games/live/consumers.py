"""The table's websocket: pushes of the board, and moves sent over the open socket.

- A push: the group message carries only the table's version (never a seat's data). Each
  socket sends its page the parts that changed for it (``boards.changed_parts``): the public
  part from the cache, rendered once per version and language for everyone, and this seat's
  private part when it changed. In one web process the table row is read, and each audience's
  board drawn, once per version (``games.live.renders``): the other sockets find it there.
- A page says which version it shows when its socket opens (``{"hello": version, "digest":
  ...}``, also after a reconnect): if the table moved on meanwhile, it gets the board at once.
- A move (``ws-send`` of the board's form: ``action``, ``version``) goes through the same
  ``submissions.move_submit`` as the HTTP post; the answer (the reason of a refusal for
  ``#board-message``, and the changed parts) comes back on this socket only, and then the
  move's events are published (the others' pushes, the streams, the queues).
- ``ping``, every 30 s: keeps the player's presence fresh and the socket in its group (a group
  membership expires in the channel layer, and is lost when Redis restarts empty).
- The apps above (``games.extensions``) add groups for a page (the players' chat room, for a
  seat), handle messages with their own keys (a chat line) and send their group messages'
  HTML (``extension.event``): the table's chat rides on this one socket.
- When the channel layer cannot be reached (Redis down or hanging), the socket is accepted and
  closed at once with ``LIVE_UNAVAILABLE`` (1013, "try again later"), never refused with a
  5xx: the page polls meanwhile and its socket tries again later (static/js/table.js).
"""

from __future__ import annotations

import contextlib
import json
import logging
from typing import Any
from urllib.parse import parse_qs

from channels.generic.websocket import AsyncWebsocketConsumer
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from django.utils import translation
from django.utils.translation import gettext

from accounts.models import User
from accounts.online import online_mark
from games import boards, extensions, submissions
from games.live import broadcast, fanout, renders
from games.live.threads import on_database
from games.models import Seat, Table
from games.services import events
from games.services.events import PAGE_ID_LENGTH
from games.services.presence import seat_presence_touch

logger = logging.getLogger(__name__)

# A move or a hello is a few hundred bytes, a chat line (500 characters) at most about 3,000
# once in JSON; anything larger is not from our page, and is refused unread.
MAX_MESSAGE_CHARS = 4000
# The close code that tells the page "no live updates now; poll, and open me again later"
# (RFC 6455's "Try Again Later": htmx's ws extension reconnects after it).
LIVE_UNAVAILABLE = 1013


# Channels ships no type information (types-channels is not a dependency): its consumer class
# is Any to mypy, and subclassing Any is refused by the strict flags (pyproject.toml).
class TableConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]
    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        self.page_id = query.get("page", [""])[0][:PAGE_ID_LENGTH]
        self.user: User | AnonymousUser = self.scope.get("user") or AnonymousUser()
        self.language = self._language()
        self.sent = boards.SentParts()
        audience = await self._audience()
        if audience is None:
            await self.close()
            return
        self.audience = audience
        self.page = extensions.SocketPage(
            table_id=self.table_id,
            user_id=audience.user_id,
            position=audience.position,
            language=self.language,
            page_id=self.page_id,
        )
        # The groups the apps above add for this page (the players' chat room for a seat): a
        # seat's private things travel only on a group of its own kind. The table's own group
        # is heard once for all the process's pages of the table (games.live.fanout).
        groups = [group for hook in extensions.socket_groups for group in hook(self.page)]
        joined = await self._join(groups)
        await self.accept()
        if not joined:
            self.closing = True
            await self.close(code=LIVE_UNAVAILABLE)
            return
        self.groups_joined = groups
        await self._touch_presence()

    async def _join(self, groups: list[str]) -> bool:
        """Puts this socket in its groups; False if the channel layer cannot be reached (its
        calls give up within a socket timeout, and at once for a while after)."""
        try:
            await fanout.page_join(self.table_id, self)
            for group in groups:
                await self.channel_layer.group_add(group, self.channel_name)
        except Exception as exc:
            logger.info("table %s: no live updates for a socket: %r", self.table_id, exc)
            return False
        return True

    async def disconnect(self, code: int) -> None:
        # Redis is down: the memberships expire there by themselves.
        with contextlib.suppress(Exception):
            await fanout.page_leave(self.table_id, self)
        for group in getattr(self, "groups_joined", []):
            with contextlib.suppress(Exception):
                await self.channel_layer.group_discard(group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not hasattr(self, "groups_joined"):
            return  # closed at connect (no channel layer): nothing more to do
        if not text_data or text_data == "ping":
            # Joins again: a membership expires (channels-redis's group expiry) and is lost
            # when Redis restarts empty; this brings the pushes back within one heartbeat.
            if not await self._join(self.groups_joined):
                await self.live_unavailable({})
                return
            await self._touch_presence()
            return
        if len(text_data) > MAX_MESSAGE_CHARS:
            with translation.override(self.language):
                await self.send_html(self._message(gettext("That message is too long.")))
            return
        try:
            message = json.loads(text_data)
        except (ValueError, RecursionError):
            return
        if not isinstance(message, dict):
            return
        try:
            if "hello" in message:
                await self._hello(message)
            elif "action" in message:
                held: list[tuple[events.Event, ...]] = []
                try:
                    await self.send_html(await self._move(message, held))
                finally:  # the others are told of the move once the mover has their answer
                    if held:
                        await self._publish(held)
            else:
                handler = next(
                    (h for key, h in extensions.socket_messages.items() if key in message), None
                )
                if handler is not None:
                    await self.send_html(await handler(self.page, message))
        except Exception:  # a bug must not drop the page's socket: say so, and log it
            logger.exception("table %s: a socket message failed", self.table_id)
            with translation.override(self.language):
                await self.send_html(self._message(gettext("Something went wrong; try again.")))

    async def live_unavailable(self, event: dict[str, Any]) -> None:
        """The channel layer lost Redis (``config.redis_guard``): no push will come, so the page
        is told to poll and to open its socket again later."""
        if not getattr(self, "closing", False):
            self.closing = True
            await self.close(code=LIVE_UNAVAILABLE)

    async def table_changed(self, event: dict[str, Any]) -> None:
        if not hasattr(self, "groups_joined"):
            return  # not open yet (its hello will bring it up to date)
        if self.page_id and event.get("origin") == self.page_id:
            return  # this page made the change: the answer to its move was the new board
        version = event.get("version", 0)
        if not isinstance(version, int) or version <= self.sent.version:
            return  # a board rendered since (from the table as it was then) is newer
        # Another socket of this process drew this version for this audience already: the
        # same board, without a thread hop (games.live.renders).
        board = renders.board_at(self.table_id, version, self.language, self.audience)
        if board is None:
            board = await self._board(at_least=version)
        if board is not None:
            await self.send_html(boards.changed_parts(board, self.sent))

    async def extension_event(self, event: dict[str, Any]) -> None:
        """A group message of an app above (``games.extensions.socket_events``, by its kind)."""
        handler = extensions.socket_events.get(str(event.get("kind", "")))
        if handler is not None and hasattr(self, "groups_joined"):
            await self.send_html(await handler(self.page, event))

    async def send_html(self, html: str) -> None:
        if html:
            await self.send(text_data=html)

    async def _hello(self, message: dict[str, Any]) -> None:
        """The page's socket (re)opened, its board at ``hello`` (a version) with a private part
        of ``digest``: if the table moved on since, the page gets what changed at once."""
        version = message.get("hello")
        digest = message.get("digest")
        if not isinstance(version, int) or isinstance(version, bool):
            version = -1
        self.sent.version = version
        self.sent.private_digest = digest[:32] if isinstance(digest, str) else None
        if await self._current_version() != version:
            board = await self._board(at_least=None)
            if board is not None:
                await self.send_html(boards.changed_parts(board, self.sent))

    @on_database
    def _current_version(self) -> int | None:
        return Table.objects.filter(pk=self.table_id).values_list("version", flat=True).first()

    @on_database
    def _audience(self) -> boards.Audience | None:
        """Who this socket's page is for, or None if there is no such table."""
        if not Table.objects.filter(pk=self.table_id).exists():
            return None
        user_id = self.user.pk if self.user.is_authenticated else None
        position = None
        if user_id is not None:
            position = (
                Seat.objects.filter(table_id=self.table_id, user_id=user_id)
                .values_list("position", flat=True)
                .first()
            )
        return boards.Audience(position=position, user_id=user_id)

    @on_database
    def _touch_presence(self) -> None:
        if self.user.is_authenticated:
            seat_presence_touch(table_id=self.table_id, user_id=self.user.pk)
            online_mark(self.user.pk)

    @on_database
    def _board(self, at_least: int | None) -> boards.Board | None:
        """The board for this page's audience, of the table as it is now (None if it is gone).

        ``at_least``: a version a push named; the row another socket of this process read at
        that version or later serves, and so does a board it drew from it. None: read the row.
        """
        table = None if at_least is None else renders.table_at(self.table_id, at_least)
        if table is None:
            table = Table.objects.filter(pk=self.table_id).first()
            if table is None:
                return None
            renders.table_keep(table)
        board = renders.board_at(table.pk, table.version, self.language, self.audience)
        if board is None:
            with translation.override(self.language):
                board = boards.board_for(table, self.audience)
            renders.board_keep(table.pk, self.language, self.audience, board)
        return board

    @on_database
    def _move(self, message: dict[str, Any], held: list[tuple[events.Event, ...]]) -> str:
        """Plays a move sent over the socket: the answer for ``#board-message``, and the
        parts of the board that changed for this page. The move's events are left in
        ``held``: telling the others (the table's group, the players' streams, the queues: a
        few milliseconds, more under load) need not delay this answer."""
        with translation.override(self.language):
            outcome = submissions.move_submit(
                table_id=self.table_id,
                user=self.user,
                data=message,
                origin=self.page_id,
                held=held,
            )
            if outcome.table is None:
                return self._message(outcome.message)
            board = boards.board_for(
                outcome.table, self.audience, outcome.seats, state=outcome.state
            )
            renders.table_keep(outcome.table)  # this seat's other pages here need no render
            renders.board_keep(self.table_id, self.language, self.audience, board)
            return self._message(outcome.message) + boards.changed_parts(board, self.sent)

    async def _publish(self, held: list[tuple[events.Event, ...]]) -> None:
        """The move's events, once its answer is sent: the table's pages told from this event
        loop (no thread hop on the push's way), then the other subscribers on a thread."""
        for batch in held:
            await broadcast.table_changed_push(batch)
        await self._publish_pushed(held)

    @on_database
    def _publish_pushed(self, held: list[tuple[events.Event, ...]]) -> None:
        events.publish(batches=held, sender=broadcast.PUSHED)

    @staticmethod
    def _message(text: str) -> str:
        return f'<div id="board-message" class="board-message">{boards.message_html(text)}</div>'

    def _language(self) -> str:
        return page_language(self.scope, self.user)


def page_language(scope: dict[str, Any], user: User | AnonymousUser) -> str:
    """A socket's page's language, as for HTTP: the player's choice, else the cookie or the
    browser's."""
    if user.is_authenticated and user.language:
        return str(user.language)
    request = HttpRequest()
    request.COOKIES = scope.get("cookies", {})
    accept = dict(scope.get("headers", [])).get(b"accept-language", b"")
    request.META["HTTP_ACCEPT_LANGUAGE"] = accept.decode("latin-1")
    return translation.get_language_from_request(request)
