"""One breaker per Redis server (config/redis_guard.py): once one client of a server finds it
failing, every client of that server (cache, channel layer, broadcast, bot-turn queue) skips
it for ``REDIS_PAUSE_SECONDS``, and the pages that read the cache answer meanwhile.

A "hung" Redis here is a socket that accepts connections and never answers (as a paused
redis-server does); a "dead" one is a port where nothing listens.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from asgiref.sync import async_to_sync
from django.urls import reverse

from config import redis_guard
from config.redis_guard import RedisUnavailable, breaker_for, guard, guarded
from games.jobs import tasks
from games.live import broadcast
from games.models import Seat
from tests.conftest import client_for, user_at
from tests.support.processes import free_port

SERVER = "redis://127.0.0.1:6379"


def test_two_urls_on_one_server_share_a_breaker_and_other_servers_have_their_own():
    one = breaker_for(f"{SERVER}/0")
    assert breaker_for(f"{SERVER}/1") is one  # another database number
    assert breaker_for("redis://:secret@127.0.0.1:6379/2") is one  # with a password
    assert breaker_for("redis://cache.internal/0") is breaker_for("redis://cache.internal:6379")
    others = [breaker_for("redis://127.0.0.1:6380/0"), breaker_for("redis://10.0.0.2:6379/0")]
    assert all(other is not one for other in others)

    one.trip(TimeoutError("a hung Redis"))
    assert breaker_for(f"{SERVER}/1").is_open
    assert not any(other.is_open for other in others)


def test_the_pause_ends_after_redis_pause_seconds(settings, monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(redis_guard, "monotonic", lambda: now[0])
    settings.REDIS_PAUSE_SECONDS = 5.0
    breaker = breaker_for(SERVER)

    breaker.trip(TimeoutError("a hung Redis"))
    now[0] += 4.9
    assert breaker.is_open
    now[0] += 0.1
    assert not breaker.is_open


def test_a_guard_that_fails_opens_the_breaker_and_the_next_calls_skip_redis():
    asked: list[str] = []
    with pytest.raises(TimeoutError), guard(f"{SERVER}/0"):
        raise TimeoutError("a hung Redis")

    assert breaker_for(SERVER).is_open
    with pytest.raises(RedisUnavailable), guard(f"{SERVER}/1"):  # the same server
        asked.append("guard")
    assert guarded(f"{SERVER}/1", asked.append, "guarded", default="skipped") == "skipped"
    assert asked == []


def test_a_guard_that_answers_leaves_the_breaker_closed():
    with guard(SERVER):
        pass
    assert guarded(SERVER, lambda: "answer") == "answer"
    assert not breaker_for(SERVER).is_open


def test_a_failing_call_gives_its_default_and_opens_the_breaker():
    def hung() -> str:
        raise ConnectionError("Redis went away")

    assert guarded(SERVER, hung, default="miss") == "miss"
    assert breaker_for(SERVER).is_open


def test_an_error_that_is_not_redis_s_leaves_the_breaker_closed():
    """A caller's own fault (here what async_to_sync raises inside a running event loop, as a
    broadcast from a browser test's thread did) is not a Redis outage: the cache and the layer
    of that server go on answering (it opened the breaker, and the next tests' cache.clear
    raised and their sign-ins met an uncleared rate limit)."""

    def misused() -> None:
        raise RuntimeError("You cannot use AsyncToSync in the same thread as an async event loop")

    with pytest.raises(RuntimeError), guard(SERVER):
        misused()
    assert guarded(SERVER, misused, default="skipped") == "skipped"
    assert not breaker_for(SERVER).is_open


def test_on_an_event_loop_a_failing_call_gives_its_default_the_same_way(caplog):
    """``aguarded``, for a socket's consumer: a Redis failure opens the breaker, another error
    is logged and leaves it closed, and while it is open nothing is asked."""
    asked: list[str] = []

    async def hung() -> str:
        asked.append("hung")
        raise ConnectionError("Redis went away")

    async def misused() -> str:
        asked.append("misused")
        raise RuntimeError("a fault of the caller")

    async def scenario() -> list:
        return [
            await redis_guard.aguarded(SERVER, misused, default="skipped"),
            breaker_for(SERVER).is_open,
            await redis_guard.aguarded(SERVER, hung, default="miss"),
            breaker_for(SERVER).is_open,
            await redis_guard.aguarded(SERVER, hung, default="miss"),
        ]

    assert async_to_sync(scenario)() == ["skipped", False, "miss", True, "miss"]
    assert asked == ["misused", "hung"], "not asked again while the breaker is open"
    assert "not for Redis's sake" in caplog.text


def test_what_redis_and_the_broker_raise_opens_it():
    from kombu.exceptions import OperationalError
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeout

    for failure in (RedisTimeout("hung"), RedisConnectionError("refused"), OperationalError()):
        breaker_for(SERVER).reset()
        assert guarded(SERVER, _raiser(failure), default="miss") == "miss"
        assert breaker_for(SERVER).is_open, failure


def _raiser(error: Exception):
    def call() -> None:
        raise error

    return call


def test_resetting_the_registry_closes_every_breaker():
    for url in (SERVER, "redis://10.0.0.2:6379"):
        breaker_for(url).trip(TimeoutError("a hung Redis"))
    redis_guard.reset_breakers()
    assert not breaker_for(SERVER).is_open and not breaker_for("redis://10.0.0.2:6379").is_open


@pytest.fixture
def hung_redis(site_redis_timeouts) -> Iterator[str]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)  # connections complete in the backlog; nothing ever reads them
    yield f"redis://127.0.0.1:{listener.getsockname()[1]}/0"
    listener.close()


@pytest.fixture
def dead_redis(site_redis_timeouts) -> str:
    return f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there


def _cache_on(url: str, settings) -> None:
    """The site's cache (sessions, boards, preferences, presence) on the Redis at ``url``,
    database 1, with the site's timeouts."""
    settings.CACHES = {
        "default": {
            "BACKEND": "config.redis_guard.GuardedRedisCache",
            "LOCATION": url[:-1] + "1",
            "OPTIONS": {
                "socket_connect_timeout": settings.REDIS_CONNECT_TIMEOUT,
                "socket_timeout": settings.REDIS_SOCKET_TIMEOUT,
            },
        }
    }


def test_a_cache_timeout_stops_the_layer_the_broadcast_and_the_bot_queue_of_that_server(
    hung_redis, settings, monkeypatch
):
    from django.core.cache import cache

    _cache_on(hung_redis, settings)
    settings.CHANNEL_LAYERS = {"default": redis_guard.channel_layer(hung_redis)}
    settings.TASKS_MODE = "celery"
    monkeypatch.setattr(tasks.play_bot_turn.app.conf, "broker_url", hung_redis)
    sent: list[object] = []

    class RecordingLayer:
        async def group_send(self, group: str, message: dict) -> None:
            sent.append(message)

    monkeypatch.setattr(broadcast, "get_channel_layer", RecordingLayer)
    monkeypatch.setattr(tasks.play_bot_turn, "apply_async", lambda *a, **k: sent.append(a))

    assert cache.get("anything", "a miss") == "a miss"  # one socket timeout: the breaker opens
    layer = redis_guard.GuardedChannelLayer(hosts=[{"address": hung_redis}])
    with pytest.raises(RedisUnavailable):
        async_to_sync(layer.group_send)("table-1", {"type": "table.changed"})
    broadcast.broadcast_table_changed(1, 2)
    tasks.bot_turn_schedule(1, 2)
    assert sent == []  # neither asked Redis


@pytest.fixture(params=["hung", "dead"])
def failing_cache(request, settings) -> str:
    url = request.getfixturevalue(f"{request.param}_redis")
    _cache_on(url, settings)
    return url


def test_a_players_pages_keep_their_language_while_the_cache_fails(alice, failing_cache):
    """The preferences (accounts/prefs.py) come from the row; a change of them is saved."""
    alice.language = "cs"
    alice.save()
    client = client_for(alice)
    for _ in range(2):  # the first request meets the failure, the next skips Redis
        response = client.get(reverse("lobby"))
        assert response.status_code == 200
        assert response["Content-Language"] == "cs"

    changed = client.post(
        reverse("profile_edit"), {"display_name": "Alice", "time_zone": "UTC", "language": "hu"}
    )
    assert changed.status_code == 302
    assert client.get(reverse("lobby"))["Content-Language"] == "hu"


def test_a_player_at_a_table_is_seen_there_while_the_cache_fails(running_table, failing_cache):
    """The presence (games/views/tables.py) is written to the row, the board rendered."""
    alice = user_at(running_table, 0)
    Seat.objects.filter(table=running_table).update(seen_at=None)
    client = client_for(alice)
    url = reverse("table_detail", args=[running_table.pk])

    page = client.get(url)
    assert page.status_code == 200
    assert f'data-version="{running_table.version}"' in page.text
    assert running_table.seats.get(position=0).seen_at is not None

    Seat.objects.filter(table=running_table).update(seen_at=None)
    poll = client.get(url, {"v": running_table.version}, HTTP_HX_REQUEST="true")
    assert poll.status_code == 204
    assert running_table.seats.get(position=0).seen_at is not None
