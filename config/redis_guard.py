"""One failure policy for every Redis client: give up quickly, then leave that server alone.

A Redis that hangs (a network partition, an overloaded or paused server) does not refuse
connections: every command waits for its socket timeout. So each client has short timeouts
(settings ``REDIS_SOCKET_TIMEOUT``, ``REDIS_CONNECT_TIMEOUT``), and each Redis server has one
``Breaker`` per process (``breaker_for(url)``, keyed by host and port): the first call to that
server that fails opens it, and every client of the same server then skips Redis at once for
``REDIS_PAUSE_SECONDS``. A hung Redis costs a request one socket timeout, once per pause, not
one per client and never every request.

The clients, and what each does while its server's breaker is open:

- the cache (``GuardedRedisCache``: sessions, boards' public parts, preferences, presence):
  reads are misses, writes are no-ops;
- the channel layer (``GuardedChannelLayer``): group calls raise ``RedisUnavailable``, and
  open sockets are told to poll;
- the broadcast of a change (``games.live.broadcast``): skipped, pages poll;
- the bot-turn queue (``games.jobs.tasks``): skipped, the deadline sweep plays the turn.

``guard(url)`` (raise while open, open on an error) and ``guarded(url, function, ...)`` (a
default instead) are how a client asks; tests close every breaker with ``reset_breakers()``.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from time import monotonic
from typing import Any
from urllib.parse import urlsplit

from channels_redis.core import RedisChannelLayer
from django.conf import settings
from django.core.cache.backends.base import DEFAULT_TIMEOUT as DEFAULT
from django.core.cache.backends.redis import RedisCache
from kombu.exceptions import OperationalError
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)


class RedisUnavailable(ConnectionError):
    """Raised instead of asking Redis while its server's breaker is open."""


# What a Redis that is down, hangs or refuses says, through redis-py (the cache, the channel
# layer), the socket itself or kombu (the Celery broker). Anything else raised inside a guard is
# a fault of the caller (say, async_to_sync called inside an event loop), not of Redis: it goes
# on up and leaves the server's other clients alone.
REDIS_FAILURES: tuple[type[BaseException], ...] = (RedisError, OSError, OperationalError)


class Breaker:
    """Open for ``REDIS_PAUSE_SECONDS`` after a failure: callers skip that server meanwhile."""

    def __init__(self, server: str) -> None:
        self.server = server
        self.open_until = 0.0

    @property
    def is_open(self) -> bool:
        return monotonic() < self.open_until

    def trip(self, error: BaseException | None = None) -> None:
        if not self.is_open:  # one warning per pause, not one per request
            logger.warning("Redis at %s failed (%r); not asked for a while", self.server, error)
        self.open_until = monotonic() + settings.REDIS_PAUSE_SECONDS

    def reset(self) -> None:
        self.open_until = 0.0

    @contextmanager
    def guard(self) -> Iterator[None]:
        """Raises ``RedisUnavailable`` at once while open; a Redis failure in the block opens it
        (and goes on up), any other error only goes on up."""
        if self.is_open:
            raise RedisUnavailable(f"Redis at {self.server} failed a moment ago")
        try:
            yield
        except RedisUnavailable:
            raise
        except REDIS_FAILURES as exc:
            self.trip(exc)
            raise

    def call(self, function: Callable[..., Any], *args: Any, default: Any = None) -> Any:
        """``function(*args)``, or ``default`` while open or when it fails: a Redis failure opens
        the breaker, any other error is logged with its traceback (a client that can do without
        Redis can do without this call too, but the fault is not Redis's)."""
        try:
            with self.guard():
                return function(*args)
        except REDIS_FAILURES:
            return default
        except Exception:
            logger.exception("a call to Redis at %s failed, not for Redis's sake", self.server)
            return default


async def aguarded(
    url: str, function: Callable[..., Awaitable[Any]], *args: Any, default: Any = None
) -> Any:
    """``await function(*args)``, which asks the Redis at ``url``, or ``default`` while that
    server fails: ``guarded`` for a caller on an event loop (a socket's consumer)."""
    breaker = breaker_for(url)
    try:
        with breaker.guard():
            return await function(*args)
    except REDIS_FAILURES:
        return default
    except Exception:
        logger.exception("a call to Redis at %s failed, not for Redis's sake", breaker.server)
        return default


def redis_server(url: str) -> str:
    """The server a Redis URL names, as host:port (its database number aside); a socket's
    path, or the URL itself for what is not Redis (``memory://``, "" for in-memory)."""
    parts = urlsplit(url)
    if parts.hostname:
        return f"{parts.hostname}:{parts.port or 6379}"
    return parts.path or url


_breakers: dict[str, Breaker] = {}
_breakers_lock = threading.Lock()


def breaker_for(url: str) -> Breaker:
    """This process's breaker for the Redis server at ``url``: one for every client of it."""
    server = redis_server(url)
    breaker = _breakers.get(server)
    if breaker is None:
        with _breakers_lock:
            breaker = _breakers.setdefault(server, Breaker(server))
    return breaker


def reset_breakers() -> None:
    """Closes every breaker (tests: one test's outage must not silence the next test's)."""
    for breaker in list(_breakers.values()):
        breaker.reset()


def guard(url: str) -> AbstractContextManager[None]:
    """``with guard(url):`` asks the Redis at ``url`` inside the block (``Breaker.guard``)."""
    return breaker_for(url).guard()


def guarded(url: str, function: Callable[..., Any], *args: Any, default: Any = None) -> Any:
    """``function(*args)``, which asks the Redis at ``url``, or ``default`` while that server
    fails (``Breaker.call``): for a client that can do without Redis for a while."""
    return breaker_for(url).call(function, *args, default=default)


def host_url(host: Any) -> str:
    """A channel layer's host entry (a URL, a dict with an ``address`` or a host and port, or
    a (host, port) pair) as a URL."""
    if isinstance(host, dict):
        host = host.get("address") or (host.get("host", "localhost"), host.get("port", 6379))
    if isinstance(host, (tuple, list)):
        return f"redis://{host[0]}:{host[1]}"
    return str(host)


def layer_url() -> str:
    """The channel layer's Redis URL ("" for the in-memory layer)."""
    layer: dict[str, Any] = settings.CHANNEL_LAYERS["default"]
    hosts = layer.get("CONFIG", {}).get("hosts", [])
    return host_url(hosts[0]) if hosts else ""


class GuardedRedisCache(RedisCache):
    """Django's Redis cache, read as a miss and written as a no-op while its Redis fails: no
    caller needs a try/except of its own.

    A deletion that fails (a session ended at sign-in or sign-out) is remembered: the key reads
    as a miss in this process, and is deleted from Redis once it answers again, so a Redis that
    comes back with its data does not bring an ended session back.
    """

    def __init__(self, server: str | list[str], params: dict[str, Any]) -> None:
        super().__init__(server, params)
        servers = re.split("[;,]", server) if isinstance(server, str) else server
        self._breaker = breaker_for(servers[0])  # the primary: writes go there
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

    def _guarded(self, call: Any, default: Any, *args: Any) -> Any:
        def flushed_then_called() -> Any:
            self._flush_undeleted()
            return call(*args)

        return self._breaker.call(flushed_then_called, default=default)

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
        if self._undeleted and not self._breaker.is_open:
            with self._lock:
                self._undeleted.discard(self.make_and_validate_key(key, version))

    def delete(self, key: Any, version: int | None = None) -> bool:
        full = self.make_and_validate_key(key, version)
        deleted = self._guarded(self._cache.delete, None, full)
        if deleted is not None:
            return deleted
        with self._lock:
            self._undeleted.add(full)
        return False

    def delete_many(self, keys: Any, version: int | None = None) -> None:
        for key in keys:
            self.delete(key, version)

    def clear(self) -> None:
        with self._breaker.guard():
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
    - Group calls fail at once while its server's breaker is open (the consumer then tells
      the page to poll; the broadcast is skipped), and open it when they fail.
    - When listening fails twice in a row (once may be a busy event loop, not Redis), every
      socket of the process is given ``UNAVAILABLE`` at once, instead of the exception that
      would drop it with an error, and then again every second while the breaker is open.
    """

    brpop_timeout = 0.2  # seconds; must stay below the connections' socket timeout
    RECEIVE_RETRY_SECONDS = 1.0
    RECEIVE_ATTEMPTS = 2

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._breaker = breaker_for(host_url(self.hosts[0]))
        self._failures: dict[asyncio.AbstractEventLoop, asyncio.Event] = {}

    def create_pool(self, index: int) -> Any:
        """A connection that Redis closed (a restart) is found dead at its next command, which
        is then tried once more on a new connection rather than failed: a process's sends keep
        their connection (``config.layer_sends``), and one stale connection must not open the
        breaker. A Redis that hangs times out, which is not tried again."""
        pool = super().create_pool(index)
        pool.connection_kwargs.update(
            retry=Retry(NoBackoff(), 1), retry_on_error=[RedisConnectionError]
        )
        return pool

    async def group_add(self, group: str, channel: str) -> None:
        with self._breaker.guard():
            await super().group_add(group, channel)

    async def group_discard(self, group: str, channel: str) -> None:
        with self._breaker.guard():
            await super().group_discard(group, channel)

    async def group_send(self, group: str, message: dict) -> None:
        with self._breaker.guard():
            await super().group_send(group, message)

    def _failure(self) -> asyncio.Event:
        """This event loop's signal that listening failed: set once, then replaced."""
        loop = asyncio.get_running_loop()
        event = self._failures.get(loop)
        if event is None or event.is_set():
            event = self._failures[loop] = asyncio.Event()
        return event

    async def receive(self, channel: str) -> dict:
        if self._breaker.is_open:
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
                self._breaker.trip(error)
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
