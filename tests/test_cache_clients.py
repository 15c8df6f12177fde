"""The Redis cache keeps one client a connection pool (``config.redis_guard.ClientPerPool``):
Django's own made a new ``redis.Redis`` for every read and write, about as long again as a read
on loopback. The one client serves every thread, and each read and write still reaches Redis."""

from __future__ import annotations

import threading
import uuid

from django.conf import settings

from config.redis_guard import GuardedRedisCache


def test_one_client_serves_every_read_and_write_of_every_thread():
    cache = GuardedRedisCache(settings.CACHES["default"]["LOCATION"], {})
    made = []
    client_class = cache._cache._client

    def counted(**kwargs):
        made.append(kwargs)
        return client_class(**kwargs)

    cache._cache._client = counted
    prefix = uuid.uuid4().hex
    errors: list[BaseException] = []

    def work(thread: int) -> None:
        try:
            for n in range(25):
                key = f"{prefix}:{thread}:{n}"
                cache.set(key, n, 30)
                assert cache.get(key) == n
                cache.delete(key)
                assert cache.get(key) is None
        except BaseException as exc:  # a failed assert in a thread: reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert len(made) == 1, f"{len(made)} clients for 400 calls"
