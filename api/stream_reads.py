"""Where the streams' reads run: a few threads shared by every open stream of the process.

An open stream is a request that lasts for hours. Django gives each request a thread of its own
for its sync work (the request's ``ThreadSensitiveContext``), so with reads in that thread, 500
open streams were 500 threads. Here the reads run on ``READ_THREADS`` threads shared by all the
streams, fewer than the database pool (``DB_POOL_SIZE``, 8) so that requests still find a
connection, and each read gives its connection back after it. Once a stream's lines start, its
request's own thread is let go.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from asgiref.sync import SyncToAsync, sync_to_async
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection

T = TypeVar("T")

READ_THREADS = 4
_threads = ThreadPoolExecutor(READ_THREADS, thread_name_prefix="api-stream-read")


def _given_back(read: Callable[..., T]) -> Callable[..., T]:
    """``read``, then its thread's database connection given back (to the pool): an open
    stream holds none while it waits. Else a web process's first streams would take its whole
    pool for as long as they stay open, and its other requests would wait, then fail."""

    def run(*args: Any, **kwargs: Any) -> T:
        try:
            return read(*args, **kwargs)
        finally:
            if not connection.in_atomic_block:  # a caller's transaction (a test's) stays
                connection.close()

    return run


def released(read: Callable[..., T]) -> Callable[..., Awaitable[T]]:
    """``read`` on the streams' shared threads, its connection given back after it."""
    return sync_to_async(_given_back(read), thread_sensitive=False, executor=_threads)


def in_request_thread(read: Callable[..., T]) -> Callable[..., Awaitable[T]]:
    """``read`` in the request's own thread, as Django's sync code runs, its connection given
    back after it: for the checks before a stream's first line (a test's transaction sees
    them), which decide its status."""
    return sync_to_async(_given_back(read))


def _nothing() -> None:
    return None


async def request_thread_let_go() -> None:
    """Ends the thread Django gave this request for its sync work (its middleware, the token's
    check), once the stream's lines start: the stream needs it no more, and it would otherwise
    wait, idle, for as long as the stream stays open. Its connection is given back first. A
    later sync call of the request (its close) makes a new one, which ends with the request.

    asgiref keeps a request's thread in ``SyncToAsync.context_to_thread_executor`` under the
    request's ``ThreadSensitiveContext`` (Django's ASGI handler enters one per request); an
    asgiref that keeps it elsewhere leaves the thread to the request, as before
    (tests/api/test_stream_sharing.py counts the threads)."""
    await in_request_thread(_nothing)()
    executors = getattr(SyncToAsync, "context_to_thread_executor", None)
    variable = getattr(SyncToAsync, "thread_sensitive_context", None)
    context = variable.get(None) if variable is not None else None
    if executors is None or context is None:
        return
    executor = executors.pop(context, None)
    if executor is not None:
        executor.shutdown(wait=False)


def encoded(line: dict[str, Any]) -> bytes:
    """One NDJSON line."""
    return (json.dumps(line, cls=DjangoJSONEncoder) + "\n").encode()
