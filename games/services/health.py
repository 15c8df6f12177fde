"""The health check a load balancer or monitor asks: database, Redis, worker heartbeat."""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import connection

HEARTBEAT_KEY = "cardtables:worker-heartbeat"
# The deadline sweep runs every 10 s (beat) or minute (the embedded timer); a heartbeat
# older than this means no worker is sweeping.
HEARTBEAT_STALE_SECONDS = 180

if TYPE_CHECKING:
    import redis

_local_heartbeat: float | None = None


def _redis() -> redis.Redis:
    """A client that asks once, with the site's short timeouts: redis-py's own default retries
    ten times, and a hung Redis would hold the health check (and its monitor) for seconds."""
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return redis.Redis.from_url(
        settings.REDIS_URL,
        socket_timeout=settings.REDIS_SOCKET_TIMEOUT,
        socket_connect_timeout=settings.REDIS_CONNECT_TIMEOUT,
        retry=Retry(NoBackoff(), 0),
    )


def heartbeat_record(*, now: float | None = None) -> None:
    """Called by every sweep: proof that a worker (or the embedded timer) is alive."""
    global _local_heartbeat
    now = time.time() if now is None else now
    _local_heartbeat = now
    if settings.REDIS_URL:
        with contextlib.suppress(Exception):  # the health check reports Redis itself
            _redis().set(HEARTBEAT_KEY, str(now), ex=24 * 3600)


def check() -> dict[str, dict[str, Any]]:
    report: dict[str, dict[str, Any]] = {}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        report["database"] = {"ok": True}
    except Exception as exc:
        report["database"] = {"ok": False, "error": exc.__class__.__name__}

    beat: float | None = _local_heartbeat
    if settings.REDIS_URL:
        try:
            client = _redis()
            client.ping()
            report["redis"] = {"ok": True}
            stored = client.get(HEARTBEAT_KEY)
            beat = float(stored) if stored else None
        except Exception as exc:
            report["redis"] = {"ok": False, "error": exc.__class__.__name__}
    else:
        report["redis"] = {"ok": True, "note": "not used (embedded default)"}

    age = None if beat is None else round(time.time() - beat, 1)
    report["worker"] = {"ok": age is not None and age < HEARTBEAT_STALE_SECONDS, "age_s": age}
    return report
