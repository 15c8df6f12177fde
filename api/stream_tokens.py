"""Whether the tokens of a web process's open streams still work: one check for them all.

Each open stream used to check its own token every ``TOKEN_CHECK`` seconds: one query every 4 s
a stream, 125 a second for 500 streams, a quarter of the web process's time (docs/benchmarks.md).
Here a process keeps the token ids of its open streams (per event loop, as the streams live on
one) and asks ONE query every ``TOKEN_CHECK`` seconds which of them are still live; each stream
of a token that is not is told, and ends with its ``tokenRevoked`` line. So a token revoked in
the database alone (no message) ends its streams within ``TOKEN_CHECK`` seconds and the query's
time, even while the channel layer is down.

The revocation's message (``api.services.token_revoke``, to the token's group) ends them at
once: the process's own channel is in the group of every token it watches, and a message there
asks for the check at once (the message names no token; the check finds which).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import AsyncIterator

from channels.layers import get_channel_layer
from django.conf import settings

from api import selectors
from api.services import REVOKED
from api.stream_reads import released
from api.tokens import token_group
from config.redis_guard import UNAVAILABLE

logger = logging.getLogger(__name__)

TOKEN_CHECK = settings.API_STREAM_TOKEN_CHECK  # seconds; a setting, so that a test may shorten it

Revoked = asyncio.Future[None]  # done when the stream's token no longer works


class _Tokens:
    """The tokens of this loop's open streams, their check, and the channel that hears their
    revocations."""

    def __init__(self) -> None:
        self.streams: dict[int, set[Revoked]] = {}
        self.layer = get_channel_layer()
        self.channel = ""
        self.joined: set[int] = set()  # the tokens whose group the channel is in
        self.check_now = asyncio.Event()
        self.checking: asyncio.Task[None] | None = None
        self.listening: asyncio.Task[None] | None = None

    async def add(self, token_id: int) -> Revoked:
        revoked: Revoked = asyncio.get_running_loop().create_future()
        self.streams.setdefault(token_id, set()).add(revoked)
        if self.checking is None or self.checking.done():
            self.checking = asyncio.ensure_future(self._check_every())
        await self._join(token_id)  # before the stream's first line: a revocation is heard
        return revoked

    async def remove(self, token_id: int, revoked: Revoked) -> None:
        streams = self.streams.get(token_id, set())
        streams.discard(revoked)
        if streams:
            return
        self.streams.pop(token_id, None)
        if token_id not in self.joined or self.layer is None:
            return
        self.joined.discard(token_id)
        if not self.joined and self.listening is not None:
            self.listening.cancel()  # nothing left to hear
            self.listening = None
        with contextlib.suppress(Exception):  # Redis down: the membership expires there
            await self.layer.group_discard(token_group(token_id), self.channel)

    async def _join(self, token_id: int) -> bool:
        """Puts the channel in the token's group; failing (Redis down), the checks remain, and
        the next check tries again."""
        if self.layer is None or token_id in self.joined:
            return True
        try:
            if not self.channel:
                self.channel = await self.layer.new_channel()
            await self.layer.group_add(token_group(token_id), self.channel)
        except Exception as exc:
            logger.info("token %s: its group could not be joined: %r", token_id, exc)
            return False
        self.joined.add(token_id)
        if self.listening is None:
            self.listening = asyncio.ensure_future(self._listen())
        return True

    async def _check_every(self) -> None:
        """Every ``TOKEN_CHECK`` seconds (at once when told), while streams are open."""
        while self.streams:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.check_now.wait(), TOKEN_CHECK)
            self.check_now.clear()
            try:
                await self._check()
            except Exception:  # the database failed: the streams go on, and so do the checks
                logger.exception("the open streams' tokens could not be checked")
            for token_id in set(self.streams) - self.joined:
                if not await self._join(token_id):
                    break  # Redis is down: the next check tries again

    async def _check(self) -> None:
        watched = list(self.streams)
        if not watched:
            return
        live = await released(selectors.tokens_live)(watched)
        for token_id in set(watched) - live:
            for revoked in self.streams.get(token_id, set()):
                if not revoked.done():
                    revoked.set_result(None)

    async def _listen(self) -> None:
        """A revocation's message asks for the check at once."""
        assert self.layer is not None
        while True:
            try:
                message = await self.layer.receive(self.channel)
            except Exception as exc:  # channels-redis's own layer raises when Redis fails
                logger.info("the open streams' tokens' groups could not be heard: %r", exc)
                message = UNAVAILABLE
                await asyncio.sleep(1)
            if message.get("type") == REVOKED:
                self.check_now.set()
            elif message.get("type") == UNAVAILABLE["type"]:
                # Redis failed, and may come back empty, without the memberships: the checks
                # go on meanwhile, and each joins the groups again until it works.
                self.joined.clear()
                self.listening = None
                return


_loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Tokens] = weakref.WeakKeyDictionary()


def _of_this_loop() -> _Tokens:
    loop = asyncio.get_running_loop()
    tokens = _loops.get(loop)
    if tokens is None:
        tokens = _loops[loop] = _Tokens()
    return tokens


@contextlib.asynccontextmanager
async def token_watched(token_id: int) -> AsyncIterator[Revoked]:
    """While the block runs, the token is checked with the process's other open streams'; the
    future it gives is done once the token no longer works."""
    tokens = _of_this_loop()
    revoked = await tokens.add(token_id)
    try:
        yield revoked
    finally:
        await tokens.remove(token_id, revoked)
