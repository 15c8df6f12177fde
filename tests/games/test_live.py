"""Live updates: every open page of a table hears of a change, and renders its own seat's view."""

from __future__ import annotations

import json
import re

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from games import live, services
from games.models import Move
from games.routing import websocket_urlpatterns
from games.rules import get_rules
from tests.conftest import user_at

pytestmark = pytest.mark.django_db(transaction=True)

DN = get_rules("district-noir")


def _next_move(table):
    table.refresh_from_db()
    state = DN.from_json(table.state)
    seat = DN.active_seats(state)[0]
    return user_at(table, seat), DN.legal_actions(state, seat)[0], table.version


def test_each_socket_receives_its_own_seats_board_after_a_move(running_table, carol):
    mover, action, version = _next_move(running_table)
    viewers = [user_at(running_table, 0), user_at(running_table, 1), carol, AnonymousUser()]

    async def scenario() -> list[str]:
        sockets = []
        for user in viewers:
            socket = WebsocketCommunicator(
                URLRouter(websocket_urlpatterns), f"/ws/t/{running_table.pk}/"
            )
            socket.scope["user"] = user
            connected, _ = await socket.connect()
            assert connected
            sockets.append(socket)
        await database_sync_to_async(services.move_play)(
            table_id=running_table.pk, user=mover, action=action, version=version
        )
        frames = [await socket.receive_from(timeout=5) for socket in sockets]
        for socket in sockets:
            await socket.disconnect()
        return frames

    frames = async_to_sync(scenario)()
    new_version = version + 1
    for frame in frames:
        assert 'id="board"' in frame
        assert f'data-version="{new_version}"' in frame
    seat0, seat1, stranger, anonymous = frames
    assert "Your hand" in seat0 and "Your hand" in seat1
    assert "Your hand" not in stranger and "Your hand" not in anonymous
    state = DN.from_json(running_table.__class__.objects.get(pk=running_table.pk).state)
    for seat, frame in [(0, seat0), (1, seat1)]:
        other_hand = {card["id"] for card in DN.view(state, 1 - seat)["hand"]}
        own_hand = {card["id"] for card in DN.view(state, seat)["hand"]}
        for card in other_hand - own_hand:
            assert f"&quot;card&quot;:{card}," not in frame
    to_move = DN.active_seats(state)[0]
    to_move_hand = {card["id"] for card in DN.view(state, to_move)["hand"]}
    assert all(f"&quot;card&quot;:{card}," in frames[to_move] for card in to_move_hand)


def test_the_group_message_carries_no_seat_data(running_table, monkeypatch):
    sent: list[tuple[str, dict]] = []

    class RecordingLayer:
        async def group_send(self, group, message):
            sent.append((group, message))

    monkeypatch.setattr(live, "get_channel_layer", lambda: RecordingLayer())
    mover, action, version = _next_move(running_table)
    services.move_play(table_id=running_table.pk, user=mover, action=action, version=version)
    assert sent == [
        (
            f"table-{running_table.pk}",
            {"type": "table.changed", "table": running_table.pk, "version": version + 1},
        )
    ]


def test_a_move_is_stored_even_when_the_channel_layer_is_down(running_table, monkeypatch):
    class DeadLayer:
        async def group_send(self, group, message):
            raise ConnectionError("Redis is down")

    monkeypatch.setattr(live, "get_channel_layer", lambda: DeadLayer())
    mover, action, version = _next_move(running_table)
    services.move_play(table_id=running_table.pk, user=mover, action=action, version=version)
    assert Move.objects.filter(table=running_table).count() == 1


def test_a_socket_to_a_table_that_does_not_exist_is_refused(db):
    async def scenario() -> bool:
        socket = WebsocketCommunicator(URLRouter(websocket_urlpatterns), "/ws/t/999999/")
        socket.scope["user"] = AnonymousUser()
        connected, _ = await socket.connect()
        await socket.disconnect()
        return connected

    assert async_to_sync(scenario)() is False


def test_the_page_connects_a_socket_and_shows_your_turn_in_the_title(running_table):
    from django.urls import reverse

    from tests.conftest import client_for

    mover, _action, _version = _next_move(running_table)
    page = client_for(mover).get(reverse("table_detail", args=[running_table.pk])).content.decode()
    connect = re.search(rf'ws-connect="/ws/t/{running_table.pk}/\?page=([\w-]+)"', page)
    assert connect, "the page opens its table's socket, naming itself"
    assert f'hx-headers=\'{{"X-Page": "{connect.group(1)}"}}\'' in page
    other = client_for(mover).get(reverse("table_detail", args=[running_table.pk])).content
    assert connect.group(1).encode() not in other, "every page load is a page of its own"
    assert 'data-my-turn="1"' in page
    assert 'id="turn-badge"' in page


def test_the_socket_board_shows_clocks_in_the_players_time_zone(running_table):
    mover, action, version = _next_move(running_table)
    waiter = user_at(running_table, 1 - running_table.seats.get(user=mover).position)
    waiter.time_zone = "Asia/Tokyo"
    waiter.save()

    async def scenario() -> str:
        socket = WebsocketCommunicator(
            URLRouter(websocket_urlpatterns), f"/ws/t/{running_table.pk}/"
        )
        socket.scope["user"] = waiter
        await socket.connect()
        await database_sync_to_async(services.move_play)(
            table_id=running_table.pk, user=mover, action=action, version=version
        )
        frame = await socket.receive_from(timeout=5)
        await socket.disconnect()
        return frame

    frame = async_to_sync(scenario)()
    assert "JST" in frame


def test_the_page_that_moved_gets_its_board_from_the_post_and_every_other_page_by_socket(
    running_table,
):
    """The moving page's own socket skips the render; the same player's other tab does not."""
    from django.urls import reverse

    from tests.conftest import client_for

    mover, action, version = _next_move(running_table)
    waiter = user_at(running_table, 1 - running_table.seats.get(user=mover).position)
    browser = client_for(mover)

    async def scenario() -> tuple[str, bool, str, str]:
        sockets = {}
        for name, user in [("moving", mover), ("other-tab", mover), ("waiter", waiter)]:
            socket = WebsocketCommunicator(
                URLRouter(websocket_urlpatterns), f"/ws/t/{running_table.pk}/?page={name}"
            )
            socket.scope["user"] = user
            assert (await socket.connect())[0]
            sockets[name] = socket
        response = await database_sync_to_async(browser.post)(
            reverse("table_act", args=[running_table.pk]),
            {"action": json.dumps(action), "version": version},
            HTTP_HX_REQUEST="true",
            HTTP_X_PAGE="moving",
        )
        other_tab = await sockets["other-tab"].receive_from(timeout=5)
        waiting = await sockets["waiter"].receive_from(timeout=5)
        silent = await sockets["moving"].receive_nothing(timeout=0.5)
        for socket in sockets.values():
            await socket.disconnect()
        return response.content.decode(), silent, other_tab, waiting

    answer, silent, other_tab, waiting = async_to_sync(scenario)()
    new_version = f'data-version="{version + 1}"'
    assert new_version in answer, "the post's answer is the new board"
    assert silent, "the moving page's socket renders nothing"
    assert new_version in other_tab and new_version in waiting


def test_any_page_header_is_only_a_name_cut_to_size(running_table, monkeypatch):
    """A made-up or oversized X-Page still plays the move; the message carries at most
    PAGE_ID_LENGTH characters of it, and a move made without a page names none."""
    from django.urls import reverse

    from tests.conftest import client_for

    sent: list[dict] = []

    class RecordingLayer:
        async def group_send(self, group, message):
            sent.append(message)

    monkeypatch.setattr(live, "get_channel_layer", lambda: RecordingLayer())
    mover, action, version = _next_move(running_table)
    response = client_for(mover).post(
        reverse("table_act", args=[running_table.pk]),
        {"action": json.dumps(action), "version": version},
        HTTP_HX_REQUEST="true",
        HTTP_X_PAGE="ž" * 5000,
    )
    assert response.status_code == 200
    assert sent[-1]["origin"] == "ž" * live.PAGE_ID_LENGTH
    mover, action, version = _next_move(running_table)
    services.move_play(table_id=running_table.pk, user=mover, action=action, version=version)
    assert "origin" not in sent[-1]


def test_a_socket_never_renders_a_board_older_than_the_one_it_sent(running_table):
    """Messages queued while a socket was rendering name versions it has already sent
    (each render reads the table as it is now): they are skipped, not rendered again."""
    from channels.layers import get_channel_layer

    mover, action, version = _next_move(running_table)
    waiter = user_at(running_table, 1 - running_table.seats.get(user=mover).position)

    async def scenario() -> tuple[str, bool, str]:
        socket = WebsocketCommunicator(
            URLRouter(websocket_urlpatterns), f"/ws/t/{running_table.pk}/"
        )
        socket.scope["user"] = waiter
        assert (await socket.connect())[0]
        await database_sync_to_async(services.move_play)(
            table_id=running_table.pk, user=mover, action=action, version=version
        )
        first = await socket.receive_from(timeout=5)
        layer = get_channel_layer()
        stale = live.changed_message(running_table.pk, version + 1)
        await layer.group_send(live.group_name(running_table.pk), stale)
        quiet = await socket.receive_nothing(timeout=0.5)
        await layer.group_send(live.group_name(running_table.pk), {**stale, "version": version + 2})
        fresh = await socket.receive_from(timeout=5)
        await socket.disconnect()
        return first, quiet, fresh

    first, quiet, fresh = async_to_sync(scenario)()
    assert f'data-version="{version + 1}"' in first
    assert quiet, "the version already sent is not rendered again"
    assert 'id="board"' in fresh, "a newer version is"
