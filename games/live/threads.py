"""The threads a web process gives its sockets' database work (table pages, their chat).

Channels' ``database_sync_to_async`` is thread-sensitive, and channels runs no consumer in a
context of its own: every socket's call of a process went to asgiref's one thread, where each
move, board and chat line of every open page waited for the others, each of them waiting on
PostgreSQL and Redis in turn (bench/load, District Noir at 32 players: a move's answer p50 210
ms on that thread, 120 ms on four). A consumer awaits each call before it handles its next
message, so one page's calls never overlap; pages of a process run side by side, as HTTP
requests always did (Django gives each its own thread).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from channels.db import DatabaseSyncToAsync
from django.conf import settings
from django.db import close_old_connections

P = ParamSpec("P")
R = TypeVar("R")

# Fewer than the process's pooled connections (settings.LIVE_DATABASE_THREADS): HTTP requests
# still find one.
LIVE_THREADS = ThreadPoolExecutor(
    max_workers=settings.LIVE_DATABASE_THREADS, thread_name_prefix="live-database"
)


def _closing(func: Callable[P, R]) -> Callable[P, R]:
    """``func``, then the thread's database connection closed if it is old (with the pool's
    ``CONN_MAX_AGE`` of 0: given back to the pool). Channels' own closing is switched off by
    its test communicator, made for the test's thread: these threads are never the test's."""

    @functools.wraps(func)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        finally:
            close_old_connections()

    return run


def on_database(func: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """``func`` run on the sockets' threads, with the old database connections closed around
    the call (channels' ``DatabaseSyncToAsync``), with the types channels does not ship."""
    wrapped: Callable[P, Awaitable[R]] = DatabaseSyncToAsync(
        _closing(func), thread_sensitive=False, executor=LIVE_THREADS
    )
    return wrapped
