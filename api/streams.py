"""The two NDJSON streams: an account's events, and one table's views.

Each is an async generator behind an async streaming response. It hears of changes by the
channel layer (fed after commit by games' broadcast, ``api.live`` and community's bell), and
then reads what changed for its token's account through the selectors, on the few threads the
process's streams share (``api.stream_reads``). What several streams of a process need alike is
done once for them all: one check of their tokens every ``TOKEN_CHECK`` seconds
(``api.stream_tokens``: a revoked token's streams end within it even when the channel layer is
down), one channel a table, one read a table's version and one line an audience
(``api.stream_tables``). A line of ``{"type": "ping"}`` every ``KEEP_ALIVE`` seconds keeps
proxies from closing a stream. Without a channel layer the streams still catch up, every
``TOKEN_CHECK`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import AsyncIterator, Collection
from typing import Any

from asgiref.sync import sync_to_async
from channels.layers import BaseChannelLayer, get_channel_layer
from django.conf import settings
from django.http import HttpRequest, StreamingHttpResponse
from ninja import NinjaAPI

from accounts.models import User
from accounts.notify import NoteKind
from api import selectors
from api.auth import scope_required
from api.live import WOKEN
from api.models import AccessToken, Scope
from api.stream_reads import encoded, in_request_thread, released, request_thread_let_go
from api.stream_tables import REFRESH, table_fed, table_line
from api.stream_tokens import TOKEN_CHECK, Revoked, token_watched
from api.tokens import user_group
from community.broadcast import NOTES
from config.redis_guard import UNAVAILABLE
from games.extensions import EXTENSION_EVENT
from games.live.broadcast import user_group_name
from games.models import Table

# Seconds between two ping lines (a setting, so that a test's server may shorten it).
KEEP_ALIVE = settings.API_STREAM_KEEP_ALIVE

Line = dict[str, Any]

NDJSON = "application/x-ndjson"

PING = encoded({"type": "ping"})
REVOKED_LINE = encoded({"type": "tokenRevoked"})


# A wait timed to end at a ping may end a hair before it (asyncio's timers and the poll's
# rounding): that close, the ping is due, rather than one more wake of 10 ms for it.
EARLY = 0.005


class _Clock:
    """When the next ping is due, and (``looks``: an account's stream) the next look without a
    message; a table's stream leaves its looks to the process (``api.stream_tables``)."""

    def __init__(self, looks: bool) -> None:
        now = self.now()
        self.ping = now + KEEP_ALIVE
        self.look = now + REFRESH if looks else math.inf

    @staticmethod
    def now() -> float:
        return asyncio.get_running_loop().time()

    def until_next(self) -> float:
        return max(min(self.ping, self.look) - self.now(), 0.01)

    def ping_due(self) -> bool:
        now = self.now()
        if now < self.ping - EARLY:
            return False
        self.ping = now + KEEP_ALIVE
        return True

    def look_due(self, every: float) -> bool:
        """Whether a look is due, the next one ``every`` seconds later (sooner, if ``every``
        got shorter: the channel layer fails)."""
        now = self.now()
        self.look = min(self.look, now + every)
        if now < self.look - EARLY:
            return False
        self.look = now + every
        return True


# --- an account's stream ------------------------------------------------------------------

TABLES, CHALLENGES = "tables", "challenges"
BOTH = frozenset({TABLES, CHALLENGES})
AccountState = tuple[dict[int, Line], dict[int, Line]]

# What the bell's message (community: a player's count of unread notes, on their own group) may
# have changed in their account's lines, by the note that came: a challenge to them, or a game
# started (their challenge accepted, a tournament's round). A turn and a game's end come by games'
# events (``api.live``); the rest (a mention, a follower, a rematch offered) change nothing here.
_NOTES_CHANGE: dict[str, frozenset[str]] = {
    NoteKind.CHALLENGE: frozenset({CHALLENGES}),
    NoteKind.CHALLENGE_ACCEPTED: frozenset({TABLES}),
    NoteKind.TOURNAMENT_ROUND: frozenset({TABLES}),
}


def _changed_by(message: dict[str, Any], state: AccountState) -> frozenset[str]:
    """What of the account's lines ``message`` may have changed: nothing, its tables, its
    challenges; a message that changes nothing costs no read."""
    if message.get("type") == WOKEN:  # games' events: a turn, a game's start or end
        return frozenset({TABLES})
    if message.get("type") != EXTENSION_EVENT or message.get("kind") != NOTES:
        return frozenset()
    new = str(message.get("new") or "")
    if not new:
        # The count went down: the player read notes (their move read their turn's), as
        # answering a challenge reads its note. Only a listed challenge can have gone.
        return frozenset({CHALLENGES}) if state[1] else frozenset()
    return _NOTES_CHANGE.get(new, frozenset())


def _account_read(user: User, parts: Collection[str], before: AccountState) -> AccountState:
    """``before`` with ``parts`` read again (one query for the tables, two for challenges)."""
    tables, challenges = before
    if TABLES in parts:
        tables = selectors.tables_running(user)
    if CHALLENGES in parts:
        challenges = selectors.incoming_challenges(user)
    return tables, challenges


def _account_lines(before: AccountState, after: AccountState) -> list[Line]:
    """The lines that take a reader from ``before`` to ``after``."""
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


class _Subscription:
    """One channel of the layer, in some groups; ``next`` waits for a message, ``revoked`` or a
    time. ``works`` is False while the layer fails: the stream then looks more often."""

    def __init__(self, groups: list[str]) -> None:
        self.layer: BaseChannelLayer | None = get_channel_layer()
        self.groups = groups
        self.channel = ""
        self.works = self.layer is not None
        # The receive that waits for the next message, kept across ``next``: cancelling a
        # channels-redis receive may lose the message it was taking.
        self.receiving: asyncio.Future[dict[str, Any]] | None = None

    async def __aenter__(self) -> _Subscription:
        if self.layer is not None:
            try:
                self.channel = await self.layer.new_channel()
                for group in self.groups:
                    await self.layer.group_add(group, self.channel)
            except Exception:  # the layer's Redis is down: the looks catch up
                self.layer, self.works = None, False
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

    async def next(self, revoked: Revoked, timeout: float) -> dict[str, Any]:
        """The next message, or {} (the time is up, or ``revoked`` is done)."""
        if self.layer is None:
            await asyncio.wait({revoked}, timeout=timeout)
            return {}
        if self.receiving is None:
            self.receiving = asyncio.ensure_future(self.layer.receive(self.channel))
        done, _pending = await asyncio.wait(
            {self.receiving, revoked}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if self.receiving not in done:
            return {}  # still waiting, not cancelled: it is there for the next call
        received, self.receiving = self.receiving, None
        try:
            message = received.result()
        except Exception:
            self.layer, self.works = None, False
            return {}
        self.works = message.get("type") != UNAVAILABLE["type"]
        return message


async def account_lines(token: AccessToken) -> AsyncIterator[bytes]:
    """The account's stream: first what is current, then each change, and a ping now and then."""
    user = token.user
    read = released(_account_read)
    groups = [user_group(user.pk), user_group_name(user.pk)]
    async with _Subscription(groups) as subscription, token_watched(token.pk) as revoked:
        state: AccountState = ({}, {})
        current = await read(user, BOTH, state)
        for line in _account_lines(state, current):
            yield encoded(line)
        state = current
        clock = _Clock(looks=True)
        while True:
            message = await subscription.next(revoked, clock.until_next())
            if revoked.done():
                yield REVOKED_LINE
                return
            parts = _changed_by(message, state)
            if clock.look_due(REFRESH if subscription.works else TOKEN_CHECK):
                parts = BOTH
            if parts:
                current = await read(user, parts, state)
                for line in _account_lines(state, current):
                    yield encoded(line)
                state = current
            if clock.ping_due():
                yield PING


# --- a table's stream ---------------------------------------------------------------------


async def table_lines(
    token: AccessToken, table_id: int, first: Line, language: str
) -> AsyncIterator[bytes]:
    """A table's stream: the whole table first (``first``), then the table at each new version;
    it ends with the game's end."""
    user = token.user
    sent = first["version"]
    if first["status"] == Table.Status.FINISHED:
        yield encoded({"type": "full", **first})
        return
    async with table_fed(table_id) as feed, token_watched(token.pk) as revoked:
        # Fed and watched before the first line: a reader that moves on seeing it is heard. A
        # move made between reading ``first`` and joining told no one: look once at once.
        yield encoded({"type": "full", **first})
        versions = await released(selectors.table_versions)([table_id])
        if table_id not in versions:
            return
        feed.heard(versions[table_id])
        clock = _Clock(looks=False)
        while True:
            if not feed.woken.done():
                await asyncio.wait(
                    {feed.woken, revoked},
                    timeout=clock.until_next(),
                    return_when=asyncio.FIRST_COMPLETED,
                )
            if revoked.done():
                yield REVOKED_LINE
                return
            if feed.gone:
                return
            feed.taken()
            if feed.version > sent:
                line = await table_line(table_id, feed.version, user, language)
                if line is None:
                    return
                if line.version > sent:
                    sent = line.version
                    yield line.data
                    if line.finished:
                        return
            if clock.ping_due():
                yield PING


# --- the responses ------------------------------------------------------------------------


def _response(lines: AsyncIterator[bytes]) -> StreamingHttpResponse:
    async def content() -> AsyncIterator[bytes]:
        await request_thread_let_go()
        async for line in lines:
            yield line

    response = StreamingHttpResponse(content(), content_type=NDJSON)
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
    """The checks (token, scope, table) run before the answer starts, in the request's thread,
    so a refusal is still a JSON 4xx; then the lines stream."""

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
        first = await in_request_thread(selectors.table_data)(table_id, token.user)
        language = getattr(request, "LANGUAGE_CODE", settings.LANGUAGE_CODE)
        return _response(table_lines(token, table_id, first, language))
