"""The chat over the table's socket (#27.1): lines arrive live in their room's pages only; the
players' room never reaches a spectator's socket; a line written over the socket takes the same
path as over HTTP, and its answer (or refusal) comes back on that socket only."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from community.models import ChatLine, ChatRead
from community.services.chat import chat_line_post
from games.live.routing import websocket_urlpatterns

pytestmark = pytest.mark.django_db(transaction=True)


async def connected(table, user) -> WebsocketCommunicator:
    socket = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/t/{table.pk}/")
    socket.scope["user"] = user
    ok, _ = await socket.connect()
    assert ok
    return socket


def frames_after(table, viewers, write) -> list[list[str]]:
    """What each viewer's open socket receives (within a second) after ``write()``."""

    async def scenario() -> list[list[str]]:
        sockets = [await connected(table, viewer) for viewer in viewers]
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


def test_a_players_line_reaches_the_seats_and_never_a_spectator_s_socket(
    running_table, alice, bob, carol
):
    seat, spectator, anonymous = frames_after(
        running_table,
        [bob, carol, AnonymousUser()],
        lambda: chat_line_post(table_id=running_table.pk, user=alice, room="players", text="psst"),
    )
    assert len(seat) == 1 and "psst" in seat[0] and 'id="chat-lines-players"' in seat[0]
    assert spectator == [] and anonymous == []


def test_a_table_line_reaches_everyone_at_the_table(running_table, alice, bob, carol):
    frames = frames_after(
        running_table,
        [alice, bob, carol, AnonymousUser()],
        lambda: chat_line_post(table_id=running_table.pk, user=carol, room="table", text="hi all"),
    )
    for got in frames:
        assert len(got) == 1 and "hi all" in got[0] and 'id="chat-lines-table"' in got[0]
    # The writer's own line is marked as theirs on their page only.
    assert 'class="chat-line mine"' in frames[2][0]
    assert 'class="chat-line mine"' not in frames[0][0]


def test_a_line_is_rendered_once_for_each_kind_of_reader_not_once_a_page(
    running_table, alice, bob, carol, make_user, monkeypatch
):
    """Five open pages in this process: two players and a signed-in spectator read it alike,
    its author sees it as theirs, a visitor cannot report it; three renders, not five."""
    import community.live

    renders: list[str] = []
    real = community.live.render_to_string

    def counted(template, context):
        renders.append(template)
        return real(template, context)

    monkeypatch.setattr(community.live, "render_to_string", counted)
    dave = make_user(username="dave")
    alice_page, bob_page, carol_page, dave_page, visitor_page = frames_after(
        running_table,
        [alice, bob, carol, dave, AnonymousUser()],
        lambda: chat_line_post(table_id=running_table.pk, user=dave, room="table", text="hi"),
    )
    assert renders == ["community/chat/pushed_line.html"] * 3
    assert alice_page == bob_page == carol_page and "Report this line by dave" in alice_page[0]
    assert 'class="chat-line mine"' in dave_page[0] and "Report" not in dave_page[0]
    assert "Report" not in visitor_page[0] and "hi" in visitor_page[0]


def say_over_socket(table, writer, listener, message: dict) -> tuple[list[str], list[str]]:
    async def scenario():
        mine, theirs = await connected(table, writer), await connected(table, listener)
        await mine.send_to(text_data=json.dumps(message))
        got = ([], [])
        for socket, frames in ((mine, got[0]), (theirs, got[1])):
            while not await socket.receive_nothing(timeout=1):
                frames.append(await socket.receive_from())
            await socket.disconnect()
        return got

    return async_to_sync(scenario)()


def test_a_line_written_over_the_socket_is_stored_and_sent_to_the_room(running_table, alice, bob):
    mine, theirs = say_over_socket(
        running_table, alice, bob, {"chat_text": "over the wire", "room": "players"}
    )
    assert ChatLine.objects.get().text == "over the wire"
    assert any('data-posted="1"' in frame for frame in mine)
    assert any("over the wire" in frame for frame in mine)  # from the room's group, as to all
    assert len(theirs) == 1 and "over the wire" in theirs[0]


def test_a_refused_line_over_the_socket_says_why_to_the_writer_alone(running_table, alice, bob):
    mine, theirs = say_over_socket(
        running_table, alice, bob, {"chat_text": "x" * 10_000, "room": "players"}
    )
    assert not ChatLine.objects.exists()
    assert len(mine) == 1 and "too long" in mine[0]  # refused unread: not our page's
    assert theirs == []
    mine, theirs = say_over_socket(
        running_table, alice, bob, {"chat_text": "y" * 501, "room": "players"}
    )
    assert not ChatLine.objects.exists()
    assert len(mine) == 1 and "at most 500 characters" in mine[0]
    assert 'id="chat-status-players"' in mine[0]
    assert theirs == []


def test_a_spectator_cannot_write_in_the_players_room_over_the_socket(running_table, bob, carol):
    mine, theirs = say_over_socket(
        running_table, carol, bob, {"chat_text": "let me in", "room": "players"}
    )
    assert not ChatLine.objects.exists()
    assert "Only the players" in mine[0]
    assert theirs == []


def test_lines_seen_on_an_open_page_are_no_longer_unread(running_table, alice, bob):
    chat_line_post(table_id=running_table.pk, user=alice, room="players", text="are you there?")

    async def scenario():
        socket = await connected(running_table, bob)
        await socket.send_to(text_data=json.dumps({"chat_seen": 1}))
        await socket.receive_nothing(timeout=0.5)
        await socket.disconnect()

    async_to_sync(scenario)()
    assert ChatRead.objects.get(user=bob).last_line_id == ChatLine.objects.get().pk


def test_a_blocked_author_s_line_never_reaches_the_blocker_s_socket(
    running_table, alice, bob, carol
):
    from accounts.models import Block

    Block.objects.create(blocker=alice, blocked=bob, no_games=False, no_contact=False)
    blocker, spectator = frames_after(
        running_table,
        [alice, carol],
        lambda: chat_line_post(table_id=running_table.pk, user=bob, room="table", text="boo"),
    )
    assert blocker == []
    assert len(spectator) == 1 and "boo" in spectator[0]
