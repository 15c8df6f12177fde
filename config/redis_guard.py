"""Redis clients that give up quickly and then leave Redis alone for a while.

A Redis that hangs (a network partition, an overloaded or paused server) does not refuse
connections: every command waits for its socket timeout. So each client here has short
timeouts (settings ``REDIS_SOCKET_TIMEOUT``, ``REDIS_CONNECT_TIMEOUT``), and after a failure
a process-wide ``Breaker`` makes the next calls fail (or miss) at once for
``REDIS_PAUSE_SECONDS``: a hung Redis costs one request a few hundred milliseconds, once per
pause, never every request. Used by the cache (sessions, boards, preferences, presence) and
the channel layer (group membership, pushes); the broadcast and the bot-turn queue keep
breakers of their own (``games.live``, ``games.tasks``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from channels_redis.core import RedisChannelLayer
from django.conf import settings
from django.core.cache.backends.redis import RedisCache

logger = logging.getLogger(__name__)


class RedisUnavailable(ConnectionError):
    """Raised instead of asking Redis while the breaker is open."""


class Breaker:
    """Open for ``REDIS_PAUSE_SECONDS`` after a failure: callers skip Redis meanwhile."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.open_until = 0.0

    @property
    def is_open(self) -> bool:
        return time.monotonic() < self.open_until

    def trip(self, error: BaseException | None = None) -> None:
        if not self.is_open:  # one warning per pause, not one per request
            logger.warning("%s: Redis failed (%r); not asked again for a while", self.name, error)
        self.open_until = time.monotonic() + settings.REDIS_PAUSE_SECONDS

    def reset(self) -> None:
        self.open_until = 0.0


cache_breaker = Breaker("cache")
layer_breaker = Breaker("channel layer")


class GuardedRedisCache(RedisCache):
    """Django's Redis cache, read as a miss and written as a no-op while Redis fails.

    Deletions still raise (at once while the breaker is open): a session deleted at sign-out
    must not be silently left valid in a Redis that comes back with its data.
    """

    def _guarded(self, call: Any, default: Any, *args: Any, **kwargs: Any) -> Any:
        if cache_breaker.is_open:
            return default
        try:
            return call(*args, **kwargs)
        except Exception as exc:
            cache_breaker.trip(exc)
            return default

    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        return self._guarded(super().get, default, key, default, version)

    def get_many(self, keys: Any, version: int | None = None) -> dict:
        return self._guarded(super().get_many, {}, keys, version)

    def has_key(self, key: Any, version: int | None = None) -> bool:
        return self._guarded(super().has_key, False, key, version)

    def set(self, key: Any, value: Any, timeout: Any = None, version: int | None = None) -> None:
        if timeout is None:
            timeout = self.default_timeout
        self._guarded(super().set, None, key, value, timeout, version)

    def set_many(self, data: dict, timeout: Any = None, version: int | None = None) -> list:
        if timeout is None:
            timeout = self.default_timeout
        return self._guarded(super().set_many, list(data), data, timeout, version)

    def add(self, key: Any, value: Any, timeout: Any = None, version: int | None = None) -> bool:
        if timeout is None:
            timeout = self.default_timeout
        return self._guarded(super().add, False, key, value, timeout, version)

    def touch(self, key: Any, timeout: Any = None, version: int | None = None) -> bool:
        if timeout is None:
            timeout = self.default_timeout
        return self._guarded(super().touch, False, key, timeout, version)

    def _raising(self, call: Any, *args: Any) -> Any:
        if cache_breaker.is_open:
            raise RedisUnavailable("the cache's Redis failed a moment ago")
        try:
            return call(*args)
        except Exception as exc:
            cache_breaker.trip(exc)
            raise

    def delete(self, key: Any, version: int | None = None) -> bool:
        return self._raising(super().delete, key, version)

    def delete_many(self, keys: Any, version: int | None = None) -> None:
        return self._raising(super().delete_many, keys, version)

    def clear(self) -> None:
        return self._raising(super().clear)


# The message the layer's receive gives a consumer when Redis failed: no pushes will come, so
# the consumer tells its page to poll (games/consumers.py, ``live_unavailable``).
UNAVAILABLE = {"type": "live.unavailable"}


class GuardedChannelLayer(RedisChannelLayer):
    """channels-redis's layer, for a Redis that may hang or come back empty.

    - Its connections have short socket timeouts (``hosts`` in settings), so its blocking
      receive asks Redis for at most ``brpop_timeout`` seconds at a time, below them.
    - Group calls fail at once while the breaker is open (the consumer then tells the page to
      poll; the broadcast is skipped).
    - When listening fails twice in a row (once may be a busy event loop, not Redis), every
      socket of the process is given ``UNAVAILABLE`` at once, instead of the exception that
      would drop it with an error, and then again every second while the breaker is open.
    """

    brpop_timeout = 0.2  # seconds; must stay below the connections' socket timeout
    RECEIVE_RETRY_SECONDS = 1.0
    RECEIVE_ATTEMPTS = 2

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._failures: dict[asyncio.AbstractEventLoop, asyncio.Event] = {}

    def _check(self) -> None:
        if layer_breaker.is_open:
            raise RedisUnavailable("the channel layer's Redis failed a moment ago")

    async def group_add(self, group: str, channel: str) -> None:
        self._check()
        try:
            await super().group_add(group, channel)
        except Exception as exc:
            layer_breaker.trip(exc)
            raise

    async def group_discard(self, group: str, channel: str) -> None:
        self._check()
        try:
            await super().group_discard(group, channel)
        except Exception as exc:
            layer_breaker.trip(exc)
            raise

    async def group_send(self, group: str, message: dict) -> None:
        self._check()
        try:
            await super().group_send(group, message)
        except Exception as exc:
            layer_breaker.trip(exc)
            raise

    def _failure(self) -> asyncio.Event:
        """This event loop's signal that listening failed: set once, then replaced."""
        loop = asyncio.get_running_loop()
        event = self._failures.get(loop)
        if event is None or event.is_set():
            event = self._failures[loop] = asyncio.Event()
        return event

    async def receive(self, channel: str) -> dict:
        if layer_breaker.is_open:
            await asyncio.sleep(self.RECEIVE_RETRY_SECONDS)
            return dict(UNAVAILABLE)
        failure = self._failure()
        for attempt in range(self.RECEIVE_ATTEMPTS):
            listening = asyncio.ensure_future(super().receive(channel))
            failed = asyncio.ensure_future(failure.wait())
            try:
                await asyncio.wait({listening, failed}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in (listening, failed):
                    if not task.done():
                        task.cancel()
                        await asyncio.gather(task, return_exceptions=True)
            if not listening.cancelled() and listening.exception() is None:
                return listening.result()
            if listening.cancelled():  # another socket of this process found Redis failing
                return dict(UNAVAILABLE)
            error = listening.exception()
            if attempt + 1 == self.RECEIVE_ATTEMPTS:
                layer_breaker.trip(error)
                failure.set()
        return dict(UNAVAILABLE)


def channel_layer(url: str, **config: Any) -> dict[str, Any]:
    """The ``CHANNEL_LAYERS["default"]`` entry for the Redis at ``url`` (settings, tests)."""
    host = {
        "address": url,
        "socket_timeout": settings.REDIS_SOCKET_TIMEOUT,
        "socket_connect_timeout": settings.REDIS_CONNECT_TIMEOUT,
    }
    return {
        "BACKEND": "config.redis_guard.GuardedChannelLayer",
        "CONFIG": {"hosts": [host], **config},
    }
