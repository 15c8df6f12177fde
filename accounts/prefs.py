"""A signed-in player's time zone and language for every request, without loading the user.

Every page (and every poll) is shown in the player's own time zone and language, but most
requests need nothing else of the user row: the unchanged board poll, the commonest request
of all, needs only the user's id, which the session holds. So the two preferences are kept
in the cache by user id, and dropped whenever the user is saved. While the cache's Redis
fails, the cache itself reads as a miss and writes nothing (``config.redis_guard``): the
preferences then come from the row.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import SESSION_KEY
from django.core.cache import cache
from django.http import HttpRequest

PREFS_TTL_SECONDS = 3600


def session_user_id(request: HttpRequest) -> int | None:
    """The id of the user the session belongs to, or None; the user row is not read.

    For what is only a preference or a presence: who may do what still asks ``request.user``.
    """
    session = getattr(request, "session", None)
    value = session.get(SESSION_KEY) if session is not None else None
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _key(user_id: int) -> str:
    return f"prefs:{user_id}"


def user_prefs(request: HttpRequest) -> tuple[str, str] | None:
    """(time zone, language) of the signed-in player, from the cache or the user row."""
    from accounts.models import User

    user_id = session_user_id(request)
    if user_id is None:
        return None
    prefs = cache.get(_key(user_id))
    if prefs is None:
        row = User.objects.filter(pk=user_id).values_list("time_zone", "language").first()
        prefs = tuple(row) if row else ("", "")
        cache.set(_key(user_id), prefs, PREFS_TTL_SECONDS)
    return prefs


def forget_prefs(sender: Any, instance: Any, **kwargs: Any) -> None:
    """Connected to the user model's post_save: the next request reads them again."""
    cache.delete(_key(instance.pk))
