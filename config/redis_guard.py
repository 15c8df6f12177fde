"""Redis clients that give up quickly and then leave Redis alone for a while.

A Redis that hangs (a network partition, an overloaded or paused server) does not refuse
connections: every command waits for its socket timeout. So each client here has short
timeouts (settings ``REDIS_SOCKET_TIMEOUT``, ``REDIS_CONNECT_TIMEOUT``), and after a failure
a process-wide ``Breaker`` makes the next calls fail (or miss) at once for
``REDIS_PAUSE_SECONDS``: a hung Redis costs one request a few hundred milliseconds, once per
pause, never every request. Used by the cache (sessions, boards, preferences, presence) and
the channel layer (group membership, pushes), one breaker for both when they share a server;
the broadcast and the bot-turn queue keep pauses of their own (``games.live.broadcast``,
``games.jobs.tasks``), and the bot-turn queue also waits while the breaker of its server is
open.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from typing import Any
from urllib.parse import urlsplit

from channels_redis.core import RedisChannelLayer
from django.conf import settings
from django.core.cache.backends.base import DEFAULT_TIMEOUT as DEFAULT
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


def redis_server(url: str) -> str:
    """The host and port a Redis URL names (its database number aside)."""
    return urlsplit(url).netloc.rpartition("@")[2]


def layer_url() -> str:
    """The channel layer's Redis URL ("" for the in-memory layer)."""
    layer: dict[str, Any] = settings.CHANNEL_LAYERS["default"]
    hosts = layer.get("CONFIG", {}).get("hosts", [])
    return str(hosts[0]["address"]) if hosts and isinstance(hosts[0], dict) else ""


def cache_url() -> str:
    """The default cache's location ("" for local memory)."""
    location = settings.CACHES["default"].get("LOCATION", "")
    return location if isinstance(location, str) else ""


cache_breaker = Breaker("cache")
# The cache and the channel layer on one Redis server (the usual deployment: two database
# numbers) share one breaker: the first call to time out stops the other from waiting too,
# so a hung Redis costs a request one socket timeout, not one for each client.
layer_breaker = (
    cache_breaker
    if layer_url() and redis_server(cache_url()) == redis_server(layer_url())
    else Breaker("channel layer")
)


class GuardedRedisCache(RedisCache):
    """Django's Redis cache, read as a miss and written as a no-op while Redis fails.

    A deletion that fails (a session ended at sign-in or sign-out) is remembered: the key reads
    as a miss in this process, and is deleted from Redis once it answers again, so a Redis that
    comes back with its data does not bring an ended session back.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._undeleted: set[str] = set()
        self._lock = threading.Lock()

    def _flush_undeleted(self) -> None:
        with self._lock:
            keys, self._undeleted = list(self._undeleted), set()
        if keys:
            try:
                self._cache.delete_many(keys)
            except Exception:
                with self._lock:
                    self._undeleted.update(keys)
                raise

    def _guarded(self, call: Any, default: Any, *args: Any, **kwargs: Any) -> Any:
        if cache_breaker.is_open:
            return default
        try:
            self._flush_undeleted()
            return call(*args, **kwargs)
        except Exception as exc:
            cache_breaker.trip(exc)
            return default

    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        if self._undeleted and self.make_and_validate_key(key, version) in self._undeleted:
            # Asked for again (an old session cookie): delete it from Redis now if Redis
            # answers, so that no other process reads it there either; a miss meanwhile.
            self._guarded(lambda: None, None)
            return default
        return self._guarded(super().get, default, key, default, version)

    def get_many(self, keys: Any, version: int | None = None) -> dict:
        found = self._guarded(super().get_many, {}, keys, version)
        if self._undeleted:
            found = {
                k: v
                for k, v in found.items()
                if self.make_and_validate_key(k, version) not in self._undeleted
            }
        return found

    def has_key(self, key: Any, version: int | None = None) -> bool:
        return self.get(key, None, version) is not None

    def set(self, key: Any, value: Any, timeout: Any = DEFAULT, version: int | None = None) -> None:
        self._forget_undeleted(key, version)
        self._guarded(super().set, None, key, value, timeout, version)

    def set_many(self, data: dict, timeout: Any = DEFAULT, version: int | None = None) -> list:
        for key in data:
            self._forget_undeleted(key, version)
        return self._guarded(super().set_many, list(data), data, timeout, version)

    def add(self, key: Any, value: Any, timeout: Any = DEFAULT, version: int | None = None) -> bool:
        return self._guarded(super().add, False, key, value, timeout, version)

    def touch(self, key: Any, timeout: Any = DEFAULT, version: int | None = None) -> bool:
        return self._guarded(super().touch, False, key, timeout, version)

    def _forget_undeleted(self, key: Any, version: int | None) -> None:
        """A key written again is no longer to be deleted (only if the write reaches Redis
        would it matter; while Redis fails, neither happens)."""
        if self._undeleted and not cache_breaker.is_open:
            with self._lock:
                self._undeleted.discard(self.make_and_validate_key(key, version))

    def delete(self, key: Any, version: int | None = None) -> bool:
        full = self.make_and_validate_key(key, version)
        if not cache_breaker.is_open:
            try:
                self._flush_undeleted()
                return self._cache.delete(full)
            except Exception as exc:
                cache_breaker.trip(exc)
        with self._lock:
            self._undeleted.add(full)
        return False

    def delete_many(self, keys: Any, version: int | None = None) -> None:
        for key in keys:
            self.delete(key, version)

    def clear(self) -> None:
        if cache_breaker.is_open:
            raise RedisUnavailable("the cache's Redis failed a moment ago")
        with self._lock:
            self._undeleted.clear()
        return super().clear()


# The message the layer's receive gives a consumer when Redis failed: no pushes will come, so
# the consumer tells its page to poll (games/live/consumers.py, ``live_unavailable``).
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
