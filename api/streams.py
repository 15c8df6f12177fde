"""The two NDJSON streams: an account's events, and one table's views.

Each is an async generator behind an async streaming response: it joins channel-layer groups
(fed after commit by games' broadcast and ``api.live``), and on each message reads what changed
for its token's account through the selectors (in a thread: the ORM is sync). A line of
``{"type": "ping"}`` every ``KEEP_ALIVE`` seconds keeps proxies from closing it; the token is
checked every ``TOKEN_CHECK`` seconds (and its revocation is also sent to the stream), so a
revoked token's stream ends within that time even when the channel layer is down. Without a
channel layer the stream still catches up at each check.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from channels.layers import BaseChannelLayer, get_channel_layer
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection
from django.http import HttpRequest, StreamingHttpResponse
from ninja import NinjaAPI

from accounts.models import User
from api import selectors
from api.auth import scope_required
from api.models import AccessToken, Scope
from api.services import REVOKED
from api.tokens import token_group, user_group
from games.live.broadcast import group_name, user_group_name
from games.models import Table

# Seconds between two ping lines, between two checks that the token still works, and between
# two reads of an account stream's state without a message (one may be lost); settings, so
# that a test's server may shorten them.
KEEP_ALIVE = settings.API_STREAM_KEEP_ALIVE
TOKEN_CHECK = settings.API_STREAM_TOKEN_CHECK
REFRESH = 4 * KEEP_ALIVE

Line = dict[str, Any]


NDJSON = "application/x-ndjson"

T = TypeVar("T")


def _released(read: Callable[..., T]) -> Callable[..., Awaitable[T]]:
    """``read`` in the stream's thread, and its database connection given back (to the pool)
    after it: an open stream holds none while it waits. Else a web process's first streams
    would take its whole pool (``DB_POOL_SIZE``, 8) for as long as they stay open, and every
    other request of the process would wait for a connection, then fail."""

    def run(*args: Any, **kwargs: Any) -> T:
        try:
            return read(*args, **kwargs)
        finally:
            if not connection.in_atomic_block:  # a caller's transaction (a test's) stays
                connection.close()

    return sync_to_async(run)


class _Subscription:
    """One channel of the layer, in some groups; ``next`` waits for a message or a time."""

    def __init__(self, groups: list[str]) -> None:
        self.layer: BaseChannelLayer | None = get_channel_layer()
        self.groups = groups
        self.channel = ""
        # The receive that waits for the next message, kept across ``next``: cancelling a
        # channels-redis receive may lose the message it was taking.
        self.receiving: asyncio.Future[dict[str, Any]] | None = None

    async def __aenter__(self) -> _Subscription:
        if self.layer is not None:
            try:
                self.channel = await self.layer.new_channel()
                for group in self.groups:
                    await self.layer.group_add(group, self.channel)
            except Exception:  # the layer's Redis is down: the checks still catch up
                self.layer = None
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.receiving is not None:
            # Not awaited: channels-redis finishes a cancelled receive only when its blocking
            # pop returns (up to 5 s), which would hold the stream's end back as long.
            self.receiving.cancel()
            self.receiving = None
        if self.layer is not None and self.channel:
            for group in self.groups:
                with contextlib.suppress(Exception):
                    await self.layer.group_discard(group, self.channel)

    async def next(self, timeout: float) -> dict[str, Any] | None:
        if self.layer is None:
            await asyncio.sleep(max(timeout, 0))
            return None
        if self.receiving is None:
            self.receiving = asyncio.ensure_future(self.layer.receive(self.channel))
        done, _pending = await asyncio.wait({self.receiving}, timeout=max(timeout, 0.01))
        if not done:
            return None  # still waiting, not cancelled: it is there for the next call
        received, self.receiving = self.receiving, None
        try:
            return received.result()
        except Exception:
            self.layer = None
            return None


class _Clock:
    """When the next ping, token check and refresh are due."""

    def __init__(self) -> None:
        now = asyncio.get_running_loop().time()
        self.ping = now + KEEP_ALIVE
        self.check = now + TOKEN_CHECK
        self.refresh = now + REFRESH

    @staticmethod
    def now() -> float:
        return asyncio.get_running_loop().time()

    def wait(self) -> float:
        return min(self.ping, self.check) - self.now()


PING: Line = {"type": "ping"}
REVOKED_LINE: Line = {"type": "tokenRevoked"}


async def _ticks(token: AccessToken, subscription: _Subscription) -> AsyncIterator[Line | None]:
    """What happens next: None (a message came, or it is time to look again: the caller reads),
    a ping line, or the revoked line (and the end), for the caller to pass on."""
    clock = _Clock()
    token_live = _released(selectors.token_live)
    while True:
        message = await subscription.next(clock.wait())
        if message is not None and message.get("type") == REVOKED:
            yield REVOKED_LINE
            return
        now = clock.now()
        if now >= clock.check:
            clock.check = now + TOKEN_CHECK
            if not await token_live(token.pk):
                yield REVOKED_LINE
                return
            if subscription.layer is None or now >= clock.refresh:
                clock.refresh = now + REFRESH
                yield None
        if message is not None:
            yield None
        if now >= clock.ping:
            clock.ping = now + KEEP_ALIVE
            yield PING


def _account_state(user: User) -> tuple[dict[int, Line], dict[int, Line]]:
    return selectors.tables_running(user), selectors.incoming_challenges(user)


def _account_lines(
    before: tuple[dict[int, Line], dict[int, Line]], after: tuple[dict[int, Line], dict[int, Line]]
) -> list[Line]:
    """The lines that take a reader from ``before`` to ``after`` (both ``_account_state``)."""
    lines: list[Line] = []
    tables_before, challenges_before = before
    tables_after, challenges_after = after
    for table_id, table in tables_after.items():
        old = tables_before.get(table_id)
        if old is None:
            lines.append({"type": "gameStart", "table": table})
        if table["my_turn"] and (old is None or not old["my_turn"] or old["turn"] != table["turn"]):
            lines.append({"type": "turn", "table": table})
    for table_id in tables_before.keys() - tables_after.keys():
        lines.append({"type": "gameFinish", "table": {"id": table_id}})
    for challenge_id, challenge in challenges_after.items():
        if challenge_id not in challenges_before:
            lines.append({"type": "challenge", "challenge": challenge})
    for challenge_id in challenges_before.keys() - challenges_after.keys():
        lines.append({"type": "challengeGone", "challenge": {"id": challenge_id}})
    return lines


async def account_lines(token: AccessToken) -> AsyncIterator[Line]:
    """The account's stream: first what is current, then each change, and a ping now and then."""
    user = token.user
    groups = [user_group(user.pk), user_group_name(user.pk), token_group(token.pk)]
    read = _released(_account_state)
    async with _Subscription(groups) as subscription:
        state: tuple[dict[int, Line], dict[int, Line]] = ({}, {})
        current = await read(user)
        for line in _account_lines(state, current):
            yield line
        state = current
        async for tick in _ticks(token, subscription):
            if tick is not None:
                yield tick
                continue
            current = await read(user)
            for line in _account_lines(state, current):
                yield line
            state = current


def _table_version(table_id: int) -> tuple[int, str] | None:
    return Table.objects.filter(pk=table_id).values_list("version", "status").first()


async def table_lines(token: AccessToken, table_id: int, first: Line) -> AsyncIterator[Line]:
    """A table's stream: the whole table first (``first``), then the table at each new version;
    it ends with the game's end."""
    user = token.user
    read = _released(selectors.table_data)
    version_of = _released(_table_version)
    version = first["version"]
    if first["status"] == Table.Status.FINISHED:
        yield {"type": "full", **first}
        return
    async with _Subscription([group_name(table_id), token_group(token.pk)]) as subscription:
        # In its groups before the first line: a reader that moves on seeing it is heard. A
        # move made between reading ``first`` and joining told no one: look once at once.
        yield {"type": "full", **first}
        async for tick in _now_then(_ticks(token, subscription)):
            if tick is not None:
                yield tick
                continue
            found = await version_of(table_id)
            if found is None:
                return
            if found[0] == version:
                continue
            data = await read(table_id, user)
            version = data["version"]
            yield {"type": "state", **data}
            if data["status"] == Table.Status.FINISHED:
                return


async def _now_then(ticks: AsyncIterator[Line | None]) -> AsyncIterator[Line | None]:
    """A look (None) at once, then ``ticks``."""
    yield None
    async for tick in ticks:
        yield tick


def _response(lines: AsyncIterator[Line]) -> StreamingHttpResponse:
    async def encoded() -> AsyncIterator[bytes]:
        async for line in lines:
            yield (json.dumps(line, cls=DjangoJSONEncoder) + "\n").encode()

    response = StreamingHttpResponse(encoded(), content_type=NDJSON)
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each line on at once
    # identity: Django's gzip middleware would hold the lines back in its buffer.
    response["Content-Encoding"] = "identity"
    return response


STREAM_DOC = {
    "responses": {
        200: {
            "description": "NDJSON: one JSON object a line",
            "content": {NDJSON: {"schema": {"type": "object"}}},
        }
    }
}


def routes_add(api: NinjaAPI) -> None:
    """The checks (token, scope, table) run before the answer starts, so a refusal is still a
    JSON 4xx; then the lines stream."""

    @api.get("/stream/events", tags=["streams"], openapi_extra=STREAM_DOC)
    async def event_stream(request: HttpRequest) -> StreamingHttpResponse:
        """Your account's events, one JSON object a line: ``gameStart``, ``turn``,
        ``gameFinish``, ``challenge``, ``challengeGone``, ``ping`` (every 7 s) and, if the token
        is revoked, ``tokenRevoked`` before it closes. It opens with what is current."""
        token = await sync_to_async(scope_required)(request, Scope.READ)
        return _response(account_lines(token))

    @api.get("/stream/tables/{table_id}", tags=["streams"], openapi_extra=STREAM_DOC)
    async def table_stream(request: HttpRequest, table_id: int) -> StreamingHttpResponse:
        """A table, one JSON object a line: ``full`` (the table as ``GET /tables/{id}``
        answers), then ``state`` at each new version, ``ping`` every 7 s; it ends with the
        game."""
        token = await sync_to_async(scope_required)(request, Scope.READ)
        first = await _released(selectors.table_data)(table_id, token.user)
        return _response(table_lines(token, table_id, first))
