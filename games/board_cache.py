"""Where the boards' public parts are kept once rendered (``games.boards.public_part``).

A public part is rendered once per (table, version, language) and shared by every web
process through Django's cache (Redis; local memory on the embedded default). That cache is
``config.redis_guard.GuardedRedisCache``: while its Redis fails, a read is a miss and a write
is a no-op, for as long as that server's breaker stays open, so a board is rendered instead
and nothing here needs a try/except of its own.

A public part never changes once rendered (its key names the version), so each process also
keeps the latest ones in its own memory: the pages of one table that a process serves then
share one copy without asking Redis for it again on every push.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from django.core.cache import cache
from django.utils.translation import get_language

# A cached public part outlives its table's next move only by accident; this bounds how long
# a part rendered by older templates (before a deploy) can still be served.
PUBLIC_TTL_SECONDS = 600
LOCAL_PARTS = 256

_local: OrderedDict[str, Any] = OrderedDict()
_local_lock = threading.Lock()


def public_key(table_id: int, version: int) -> str:
    """The cache key of a table's public part at a version, in the active language."""
    return f"board:{table_id}:{version}:{get_language()}:public"


def get(key: str) -> Any:
    """The part kept under ``key``: from this process's memory, else the cache; or None."""
    with _local_lock:
        value = _local.get(key)
        if value is not None:
            _local.move_to_end(key)
            return value
    value = cache.get(key)
    if value is not None:
        _remember(key, value)
    return value


def put(key: str, value: Any) -> None:
    """Keeps a part just rendered, here and in the cache."""
    _remember(key, value)
    cache.set(key, value, PUBLIC_TTL_SECONDS)


def _remember(key: str, value: Any) -> None:
    with _local_lock:
        _local[key] = value
        _local.move_to_end(key)
        while len(_local) > LOCAL_PARTS:
            _local.popitem(last=False)


def forget_local_parts() -> None:
    """Empties this process's own copies (for tests that change a table without a version)."""
    with _local_lock:
        _local.clear()
