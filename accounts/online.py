"""Who is online now: a player seen by any page (a request, a poll, a table's socket ping)
within ``ONLINE_SECONDS``. Kept in the cache alone, never in the database: a mark is one cache
write, and a list of friends asks for all its marks at once.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.core.cache import cache

# A table page pings its socket every 30 s and polls faster without it: two minutes of silence
# means the player has gone.
ONLINE_SECONDS = 120


def _key(user_id: int) -> str:
    return f"online:{user_id}"


def online_mark(user_id: int) -> None:
    cache.set(_key(user_id), 1, ONLINE_SECONDS)


def online_among(user_ids: Iterable[int]) -> set[int]:
    """Which of ``user_ids`` are online now (one cache round trip)."""
    ids = list(user_ids)
    if not ids:
        return set()
    found = cache.get_many([_key(user_id) for user_id in ids])
    return {user_id for user_id in ids if _key(user_id) in found}
