"""Redis that hangs (paused with SIGSTOP), that comes back empty, and group memberships that
expire (issue 20), on the real services: a private redis-server of each test's own.

Each checks that the moves stored equal the moves accepted (none lost, none twice), that no
answer is a 5xx (a socket that cannot get live updates is closed with 1013, "try again later",
for its page to poll), and that every page gets the final board over its socket.
"""

from __future__ import annotations

import time

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.urls import reverse

from config import redis_guard
from games.live.consumers import LIVE_UNAVAILABLE
from games.live.routing import websocket_urlpatterns
from games.models import Move, Table
from tests.conftest import client_for, user_at
from tests.support.faults import MOVE_BUDGET_S, REAL_SERVICES, play_over_http, replays_exactly
from tests.support.sockets import BoardSocket

pytestmark = REAL_SERVICES
# A move once the breakers skip Redis: no wait on it at all.
SKIPPING_S = 1.0


async def _open(table: Table, user) -> WebsocketCommunicator:
    socket = BoardSocket(URLRouter(websocket_urlpatterns), f"/ws/t/{table.pk}/")
    socket.scope["user"] = user
    connected, code = await socket.connect(timeout=10)
    assert connected, code
    return socket


async def _open_when_live(table: Table, user, seconds: float = 15) -> WebsocketCommunicator:
    """Opens the page's socket as the page does after a 1013: again, until it stays open."""
    deadline = time.monotonic() + seconds
    while True:
        socket = await _open(table, user)
        if await socket.receive_nothing(timeout=2):
            return socket
        assert await socket.receive_output() == {"type": "websocket.close", "code": 1013}
        assert time.monotonic() < deadline, "the socket never went live again"
        await socket.wait()


async def _closed_with(socket: WebsocketCommunicator) -> int:
    message = await socket.receive_output(timeout=10)
    assert message["type"] == "websocket.close", message
    return message.get("code")


async def _timed_move(table: Table) -> float:
    started = time.monotonic()
    response = await database_sync_to_async(play_over_http)(table)
    assert response.status_code == 200, response.status_code
    return time.monotonic() - started


async def _final_board_on(sockets: list[WebsocketCommunicator], table: Table) -> None:
    version = (await database_sync_to_async(Table.objects.get)(pk=table.pk)).version
    for socket in sockets:
        frame = await socket.receive_from(timeout=10)
        assert f'data-version="{version}"' in frame


def _stored(table: Table) -> int:
    return Move.objects.filter(table=table).count()


def test_redis_paused_mid_game_costs_only_live_updates(running_table, on_private_redis):
    alice, bob = user_at(running_table, 0), user_at(running_table, 1)

    async def scenario() -> int:
        pages = [await _open(running_table, alice), await _open(running_table, bob)]
        accepted = 0
        usual = await _timed_move(running_table)  # what a move costs on this machine now
        accepted += 1
        await _final_board_on(pages, running_table)

        on_private_redis.pause()
        durations = []
        for _ in range(3):
            durations.append(await _timed_move(running_table))
            accepted += 1
        assert max(durations) < usual + MOVE_BUDGET_S, (usual, durations)
        assert max(durations[1:]) < usual + SKIPPING_S, (usual, durations)  # once, not always
        for page in pages:  # the open pages are told to poll
            assert await _closed_with(page) == LIVE_UNAVAILABLE
        opened_now = await _open(running_table, alice)  # accepted, never a 5xx
        assert await _closed_with(opened_now) == LIVE_UNAVAILABLE
        started = time.monotonic()
        health = await database_sync_to_async(client_for(None).get)(reverse("health"))
        assert health.status_code == 503 and time.monotonic() - started < MOVE_BUDGET_S
        url = reverse("table_detail", args=[running_table.pk])
        poll = await database_sync_to_async(
            lambda: client_for(bob).get(url, {"v": 1}, HTTP_HX_REQUEST="true")
        )()
        assert poll.status_code == 200  # the polling page gets the moves meanwhile

        on_private_redis.resume()
        return accepted + await _live_again_and_a_move_reaches_them(running_table, alice, bob)

    accepted = async_to_sync(scenario)()
    assert _stored(running_table) == accepted == 5
    assert replays_exactly(running_table)


async def _live_again_and_a_move_reaches_them(table, alice, bob) -> int:
    """Once Redis answers: both pages go live again, and one more move (accepted: 1) reaches
    both of them over their sockets."""
    pages = [await _open_when_live(table, alice)]
    pages.append(await _open_when_live(table, bob))
    await _timed_move(table)
    await _final_board_on(pages, table)
    for page in pages:
        await page.disconnect()
    return 1


def test_redis_restarted_empty_pages_get_pushes_again(running_table, on_private_redis):
    alice, bob = user_at(running_table, 0), user_at(running_table, 1)

    async def scenario() -> int:
        pages = [await _open(running_table, alice), await _open(running_table, bob)]
        usual = await _timed_move(running_table)
        accepted = 1
        await _final_board_on(pages, running_table)
        on_private_redis.stop()
        for _ in range(2):
            assert await _timed_move(running_table) < usual + MOVE_BUDGET_S
            accepted += 1
        for page in pages:
            assert await _closed_with(page) == LIVE_UNAVAILABLE
        on_private_redis.start()  # the same port, nothing in it
        return accepted + await _live_again_and_a_move_reaches_them(running_table, alice, bob)

    accepted = async_to_sync(scenario)()
    assert _stored(running_table) == accepted == 4
    assert replays_exactly(running_table)


def test_memberships_lost_under_an_open_socket_come_back_on_its_heartbeat(
    running_table, on_private_redis
):
    """Redis emptied without dropping the connection (as a failover to an empty replica): the
    socket stays open, no push comes, and its next ``ping`` joins its group again."""
    import redis

    alice = user_at(running_table, 0)

    async def scenario() -> None:
        page = await _open(running_table, alice)
        redis.Redis.from_url(on_private_redis.url).flushdb()
        await _timed_move(running_table)
        assert await page.receive_nothing(timeout=1)  # its membership is gone
        await page.send_to(text_data="ping")
        await page.receive_nothing(timeout=1)  # the heartbeat is handled
        await _timed_move(running_table)
        await _final_board_on([page], running_table)
        await page.disconnect()

    async_to_sync(scenario)()
    assert _stored(running_table) == 2 and replays_exactly(running_table)


def test_a_socket_open_longer_than_the_group_expiry_rejoins_on_its_heartbeat(
    running_table, on_private_redis, settings
):
    settings.CHANNEL_LAYERS = {
        "default": redis_guard.channel_layer(on_private_redis.url, group_expiry=2)
    }
    alice = user_at(running_table, 0)

    async def scenario() -> None:
        page = await _open(running_table, alice)
        await page.receive_nothing(timeout=2.5)  # a page left open past the group's expiry
        await _timed_move(running_table)
        assert await page.receive_nothing(timeout=1)  # expired: no push
        await page.send_to(text_data="ping")  # its heartbeat
        await page.receive_nothing(timeout=1)
        await _timed_move(running_table)
        await _final_board_on([page], running_table)
        await page.disconnect()

    async_to_sync(scenario)()
    assert _stored(running_table) == 2 and replays_exactly(running_table)


def test_one_timeout_stops_every_client_of_the_same_redis_for_the_pause(settings):
    """The cache, the channel layer and the bot-turn queue on one server: the first call that
    times out opens the breaker for all three, so a hung Redis costs a request one socket
    timeout, not one per client (the cache's, then the broadcast's, then the queue's)."""
    from games.jobs import tasks

    if not settings.REDIS_URL:
        pytest.skip("needs Redis (REDIS_URL)")
    cache_breaker = redis_guard.breaker_for(settings.CACHES["default"]["LOCATION"])
    layer_breaker = redis_guard.breaker_for(redis_guard.layer_url())
    broker_breaker = redis_guard.breaker_for(tasks.play_bot_turn.app.conf.broker_url)
    assert layer_breaker is cache_breaker
    assert not broker_breaker.is_open
    cache_breaker.trip(TimeoutError("a hung Redis"))
    assert layer_breaker.is_open
    assert broker_breaker.is_open
