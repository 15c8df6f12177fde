"""Channel-layer group messages sent from synchronous code: a Celery worker's bot move, a sweep,
a view, a management command, the tests.

asgiref's ``async_to_sync``, called where no event loop runs, makes a new event loop for each
call, and channels-redis opens a new connection to Redis for each loop: 3.6 ms of CPU a message
on this machine, against 0.5 ms on one loop that stays (``bench/layer_sends.py``). So the Redis
layer's messages go through this process's own sending loop, a daemon thread started at the
first one (and again in a forked child: a Celery worker's). Any other layer (the in-memory one
of the embedded default, whose queues belong to the web server's loop) goes through
``async_to_sync`` as before.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any

from asgiref.sync import async_to_sync
from channels_redis.core import RedisChannelLayer

RESULT_TIMEOUT = 30.0  # seconds
Send = Callable[[str, dict[str, Any]], None]

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None
_pid = 0


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    """The sending thread: runs ``loop`` until stopped, then closes it there (channels-redis
    closes the loop's connections as it closes, which needs no other loop running in the
    thread: the caller's may have one, as Playwright's sync API does)."""
    asyncio.set_event_loop(loop)
    try:
        loop.run_forever()
    finally:
        loop.close()


def _sending_loop() -> asyncio.AbstractEventLoop:
    """This process's sending loop, started if it is not running."""
    global _loop, _thread, _pid
    with _lock:
        if _loop is None or _pid != os.getpid() or _loop.is_closed():
            _loop = asyncio.new_event_loop()
            _thread = threading.Thread(
                target=_serve, args=[_loop], name="channel-layer-sends", daemon=True
            )
            _pid = os.getpid()
            _thread.start()
        return _loop


def run(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Runs ``coroutine`` on the sending loop and waits for its result (or its error). Not from
    an event loop's own thread, which it would stop meanwhile (``async_to_sync`` refuses too)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        coroutine.close()
        raise RuntimeError("layer_sends.run called from an event loop's thread: await instead")
    loop = _sending_loop()
    future = asyncio.run_coroutine_threadsafe(coroutine, loop)
    # A hung Redis fails the send after its socket timeout. A loop stopped before the message
    # went (``close``, at a test's end) never answers: that is a failure to reach Redis.
    deadline = time.monotonic() + RESULT_TIMEOUT
    while True:
        try:
            return future.result(timeout=0.25)
        except TimeoutError:
            if future.done():  # the send's own timeout
                raise
            if not loop.is_running() or time.monotonic() > deadline:
                future.cancel()
                raise ConnectionError("the channel layer's sending loop stopped") from None


def sender(layer: Any) -> Send:
    """A synchronous ``group_send`` of ``layer``."""
    if isinstance(layer, RedisChannelLayer):

        def send(group: str, message: dict[str, Any]) -> None:
            run(layer.group_send(group, message))

        return send
    return async_to_sync(layer.group_send)


def close() -> None:
    """Stops and closes the sending loop, and with it the layers' connections made on it
    (channels-redis closes a loop's connections when the loop closes). The next message starts
    a new one: for the tests, whose every test has a new layer."""
    global _loop, _thread
    with _lock:
        loop, thread, _loop, _thread = _loop, _thread, None, None
    if loop is None or _pid != os.getpid() or loop.is_closed():
        return
    loop.call_soon_threadsafe(loop.stop)
    if thread is not None:
        thread.join()
