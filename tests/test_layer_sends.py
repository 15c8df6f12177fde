"""Group messages sent from synchronous code (config/layer_sends.py): on the Redis layer they go
through one sending loop a process, which keeps its connection to Redis from one message to the
next (asgiref's ``async_to_sync`` made a loop, and channels-redis a connection, for each);
they still arrive, in a forked worker too; the in-memory layer keeps ``async_to_sync``.
"""

from __future__ import annotations

import asyncio
import multiprocessing

import pytest
import redis
from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings

from config import layer_sends

needs_redis = pytest.mark.skipif(
    not settings.REDIS_URL, reason="the Redis channel layer needs REDIS_URL"
)


def _connections_made() -> int:
    return int(redis.Redis.from_url(settings.REDIS_URL).info("stats")["total_connections_received"])


def _received(layer, channel: str, count: int) -> list[dict]:
    async def receive() -> list[dict]:
        return [await asyncio.wait_for(layer.receive(channel), 5) for _ in range(count)]

    return async_to_sync(receive)()


@needs_redis
def test_messages_from_sync_code_arrive_in_order_over_one_connection():
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)("sends-test", channel)
    send = layer_sends.sender(layer)
    send("sends-test", {"type": "first"})  # the loop and its connection are made here
    before = _connections_made()
    for n in range(50):
        send("sends-test", {"type": "counted", "n": n})
    # One for the count itself; the old way made 50.
    assert _connections_made() - before <= 2
    messages = _received(layer, channel, 51)
    assert [m["type"] for m in messages[:1]] == ["first"]
    assert [m["n"] for m in messages[1:]] == list(range(50))


def _send_from_child(group: str) -> None:
    layer_sends.sender(get_channel_layer())(group, {"type": "from.child"})


@needs_redis
def test_a_forked_worker_sends_on_a_loop_of_its_own():
    """A Celery worker forks after the parent may have sent: the child's loop is its own."""
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)("sends-fork", channel)
    layer_sends.sender(layer)("sends-fork", {"type": "from.parent"})
    forked = multiprocessing.get_context("fork")
    child = forked.Process(target=_send_from_child, args=["sends-fork"])
    child.start()
    child.join(30)
    assert child.exitcode == 0
    assert [m["type"] for m in _received(layer, channel, 2)] == ["from.parent", "from.child"]


@needs_redis
def test_closing_the_loop_closes_its_connections_and_the_next_send_opens_another():
    layer = get_channel_layer()
    send = layer_sends.sender(layer)
    send("sends-close", {"type": "x"})
    client = redis.Redis.from_url(settings.REDIS_URL)
    open_before = client.info("clients")["connected_clients"]
    layer_sends.close()
    assert client.info("clients")["connected_clients"] == open_before - 1
    send("sends-close", {"type": "x"})
    assert client.info("clients")["connected_clients"] == open_before


def test_sending_from_an_event_loop_is_refused_as_async_to_sync_refuses_it():
    async def inside() -> None:
        layer_sends.run(asyncio.sleep(0))

    with pytest.raises(RuntimeError, match="event loop"):
        asyncio.run(inside())


def test_the_in_memory_layer_is_left_to_async_to_sync():
    layer = InMemoryChannelLayer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)("sends-memory", channel)
    layer_sends.sender(layer)("sends-memory", {"type": "kept"})
    assert async_to_sync(layer.receive)(channel) == {"type": "kept"}
