"""The bell over the sockets (#27.5): a player's count reaches their own pages, on the table
page's socket and on every other page's small one, and nobody else's."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from community.routing import websocket_urlpatterns as note_sockets
from community.services.people import follow_add
from games.live.routing import websocket_urlpatterns as table_sockets

pytestmark = pytest.mark.django_db(transaction=True)

ROUTER = URLRouter(table_sockets + note_sockets)


def frames_after(paths_users, write) -> list[list[str]]:
    async def scenario() -> list[list[str]]:
        sockets = []
        for path, user in paths_users:
            socket = WebsocketCommunicator(ROUTER, path)
            socket.scope["user"] = user
            ok, _ = await socket.connect()
            assert ok
            sockets.append(socket)
        await database_sync_to_async(write)()
        got = []
        for socket in sockets:
            frames = []
            while not await socket.receive_nothing(timeout=1):
                frames.append(await socket.receive_from())
            got.append(frames)
            await socket.disconnect()
        return got

    return async_to_sync(scenario)()


def test_a_new_follower_rings_the_bell_of_every_page_of_theirs_and_no_one_else_s(
    running_table, alice, bob, carol
):
    table = f"/ws/t/{running_table.pk}/"
    bob_lobby, bob_table, alice_table, carol_lobby, anonymous = frames_after(
        [
            ("/ws/me/", bob),
            (table, bob),
            (table, alice),
            ("/ws/me/", carol),
            (table, AnonymousUser()),
        ],
        lambda: follow_add(user=carol, target=bob),
    )
    bob.refresh_from_db()
    for frames in (bob_lobby, bob_table):
        (frame,) = frames
        assert 'id="bell"' in frame
        assert f'<span class="bell-count" aria-hidden="true">{bob.notes_unread}</span>' in frame
        assert "New notification: a new follower" in frame
    assert alice_table == [] and carol_lobby == [] and anonymous == []


def test_a_visitor_s_small_socket_is_closed():
    async def scenario():
        socket = WebsocketCommunicator(ROUTER, "/ws/me/")
        socket.scope["user"] = AnonymousUser()
        ok, _ = await socket.connect()
        return ok

    assert async_to_sync(scenario)() is False
