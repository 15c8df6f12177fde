"""Live updates and moves over the table's websocket.

Every open page hears of a change and gets the board's parts that changed for it: the
public part, the same bytes for everyone, and its own seat's private part. A move sent over
the socket goes through the same path as the HTTP post and is answered on that socket only.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import threading

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.core import mail
from django.urls import reverse

from accounts.models import User
from games import submissions
from games.jobs import sweeps
from games.live import broadcast
from games.live.routing import websocket_urlpatterns
from games.models import Move, Seat, Table
from games.rules import get_rules
from games.services import events
from games.services.events import TableChanged
from games.services.moves import move_play
from games.services.tables import table_create, table_join
from tests.conftest import client_for, user_at
from tests.support.sockets import BoardSocket

pytestmark = pytest.mark.django_db(transaction=True)

DN = get_rules("district-noir")
PUBLIC = re.compile(r'<div id="board-public".*?(?=<div id="board-private"|$)', re.S)


def _next_move(table):
    table.refresh_from_db()
    state = DN.from_json(table.state)
    seat = DN.active_seats(state)[0]
    return user_at(table, seat), DN.legal_actions(state, seat)[0], table.version


def _socket(table, user, page: str = "") -> WebsocketCommunicator:
    query = f"?page={page}" if page else ""
    socket = BoardSocket(URLRouter(websocket_urlpatterns), f"/ws/t/{table.pk}/{query}")
    socket.scope["user"] = user
    return socket


async def _connected(table, user, page: str = "") -> WebsocketCommunicator:
    socket = _socket(table, user, page)
    connected, _ = await socket.connect()
    assert connected
    return socket


def _pushed_after_a_move(table, viewer, mover, action, version) -> str:
    """What ``viewer``'s open socket receives when ``mover`` plays ``action``."""

    async def scenario() -> str:
        socket = await _connected(table, viewer)
        await database_sync_to_async(move_play)(
            table_id=table.pk, user=mover, action=action, version=version
        )
        frame = await socket.receive_from(timeout=5)
        await socket.disconnect()
        return frame

    return async_to_sync(scenario)()


def _public(frame: str) -> str:
    return PUBLIC.search(frame).group(0)


def test_each_socket_gets_the_same_public_part_and_only_its_own_seats_private_part(
    running_table, carol
):
    mover, action, version = _next_move(running_table)
    viewers = [user_at(running_table, 0), user_at(running_table, 1), carol, AnonymousUser()]

    async def scenario() -> list[str]:
        sockets = [await _connected(running_table, user) for user in viewers]
        await database_sync_to_async(move_play)(
            table_id=running_table.pk, user=mover, action=action, version=version
        )
        frames = [await socket.receive_from(timeout=5) for socket in sockets]
        for socket in sockets:
            await socket.disconnect()
        return frames

    frames = async_to_sync(scenario)()
    publics = {_public(frame) for frame in frames}
    assert len(publics) == 1, "every page gets the same bytes of the public part"
    assert f'data-version="{version + 1}"' in publics.pop()
    seat0, seat1, stranger, anonymous = frames
    assert "Your hand" in seat0 and "Your hand" in seat1
    assert "Your hand" not in stranger and "Your hand" not in anonymous
    state = DN.from_json(Table.objects.get(pk=running_table.pk).state)
    for seat, frame in [(0, seat0), (1, seat1)]:
        other_hand = {card["id"] for card in DN.view(state, 1 - seat)["hand"]}
        own_hand = {card["id"] for card in DN.view(state, seat)["hand"]}
        for card in other_hand - own_hand:
            assert f"&quot;card&quot;:{card}," not in frame
    to_move = DN.active_seats(state)[0]
    to_move_hand = {card["id"] for card in DN.view(state, to_move)["hand"]}
    assert all(f"&quot;card&quot;:{card}," in frames[to_move] for card in to_move_hand)


def test_a_push_leaves_out_the_private_part_a_page_already_shows(running_table, carol):
    """A spectator's private part is empty and never changes: after the page said which
    one it shows, pushes carry the public part alone."""
    mover, action, version = _next_move(running_table)
    board = client_for(carol).get(
        reverse("table_detail", args=[running_table.pk]), HTTP_HX_REQUEST="true"
    )
    digest = re.search(r'id="board-private"[^>]*data-digest="(\w+)"', board.content.decode())

    async def scenario() -> str:
        socket = await _connected(running_table, carol)
        await socket.send_to(text_data=json.dumps({"hello": version, "digest": digest.group(1)}))
        assert await socket.receive_nothing(timeout=0.3), "the page is up to date"
        await database_sync_to_async(move_play)(
            table_id=running_table.pk, user=mover, action=action, version=version
        )
        frame = await socket.receive_from(timeout=5)
        await socket.disconnect()
        return frame

    frame = async_to_sync(scenario)()
    assert 'id="board-public"' in frame
    assert 'id="board-private"' not in frame


def test_the_group_message_carries_no_seat_data(running_table, monkeypatch):
    sent: list[tuple[str, dict]] = []

    class RecordingLayer:
        async def group_send(self, group, message):
            sent.append((group, message))

    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: RecordingLayer())
    mover, action, version = _next_move(running_table)
    move_play(table_id=running_table.pk, user=mover, action=action, version=version)
    assert sent == [
        (
            f"table-{running_table.pk}",
            {"type": "table.changed", "table": running_table.pk, "version": version + 1},
        )
    ]


def test_a_move_returns_its_events_and_they_are_published_once_after_the_commit(running_table):
    heard: list[tuple] = []

    def listener(sender, events, **kwargs):
        heard.append(events)

    events.table_events.connect(listener)
    try:
        mover, action, version = _next_move(running_table)
        result = move_play(table_id=running_table.pk, user=mover, action=action, version=version)
    finally:
        events.table_events.disconnect(listener)
    assert heard == [tuple(result.events)]
    changed, started = result.events[:2]
    assert changed == events.TableChanged(running_table.pk, version + 1)
    assert isinstance(started, events.TurnStarted) and started.version == version + 1


def test_a_move_is_stored_even_when_the_channel_layer_is_down(running_table, monkeypatch):
    class DeadLayer:
        async def group_send(self, group, message):
            raise ConnectionError("Redis is down")

    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: DeadLayer())
    mover, action, version = _next_move(running_table)
    move_play(table_id=running_table.pk, user=mover, action=action, version=version)
    assert Move.objects.filter(table=running_table).count() == 1


def test_a_socket_to_a_table_that_does_not_exist_is_refused(db):
    async def scenario() -> bool:
        socket = BoardSocket(URLRouter(websocket_urlpatterns), "/ws/t/999999/")
        socket.scope["user"] = AnonymousUser()
        connected, _ = await socket.connect()
        await socket.disconnect()
        return connected

    assert async_to_sync(scenario)() is False


def test_a_socket_opened_from_another_site_is_refused(running_table, alice):
    """Moves travel over the socket: a page of another origin must not open one with the
    player's cookies (cross-site websocket hijacking)."""
    from config.asgi import application

    async def scenario(origin: bytes) -> bool:
        socket = WebsocketCommunicator(
            application, f"/ws/t/{running_table.pk}/", headers=[(b"origin", origin)]
        )
        connected, _ = await socket.connect()
        await socket.disconnect()
        return connected

    assert async_to_sync(scenario)(b"https://evil.example") is False
    assert async_to_sync(scenario)(b"http://localhost") is True


def test_the_page_connects_a_socket_and_shows_your_turn_in_the_title(running_table):
    mover, _action, _version = _next_move(running_table)
    page = client_for(mover).get(reverse("table_detail", args=[running_table.pk])).content.decode()
    connect = re.search(rf'ws-connect="/ws/t/{running_table.pk}/\?page=([\w-]+)"', page)
    assert connect, "the page opens its table's socket, naming itself"
    assert f'hx-headers=\'{{"X-Page": "{connect.group(1)}"}}\'' in page
    other = client_for(mover).get(reverse("table_detail", args=[running_table.pk])).content
    assert connect.group(1).encode() not in other, "every page load is a page of its own"
    assert 'data-my-turn="1"' in page
    assert 'id="turn-badge"' in page


def test_no_pushed_part_carries_a_relative_time_or_a_csrf_token(running_table):
    """Parts are shared between pages and cached: clocks are a deadline the browser counts
    down, in UTC, and the CSRF token travels in the page's hx-headers."""
    mover, action, version = _next_move(running_table)
    waiter = user_at(running_table, 1 - running_table.seats.get(user=mover).position)
    waiter.time_zone = "Asia/Tokyo"
    waiter.save()

    frame = _pushed_after_a_move(running_table, waiter, mover, action, version)
    deadline = Table.objects.get(pk=running_table.pk).seats.get(user=waiter).deadline
    assert f'<time datetime="{deadline.isoformat()}"' in frame
    assert "+00:00" in frame and "JST" not in frame
    assert not re.search(r"\d+\s+(minutes?|hours?|days?)", frame)
    assert "csrfmiddlewaretoken" not in frame and "X-CSRFToken" not in frame


def test_the_page_that_moved_gets_its_board_from_the_post_and_every_other_page_by_socket(
    running_table,
):
    """The moving page's own socket skips the render; the same player's other tab does not."""
    mover, action, version = _next_move(running_table)
    waiter = user_at(running_table, 1 - running_table.seats.get(user=mover).position)
    browser = client_for(mover)

    async def scenario() -> tuple[str, bool, str, str]:
        sockets = {}
        for name, user in [("moving", mover), ("other-tab", mover), ("waiter", waiter)]:
            sockets[name] = await _connected(running_table, user, name)
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


def test_a_move_sent_over_the_socket_is_played_once_and_answered_on_that_socket(running_table):
    mover, action, version = _next_move(running_table)
    waiter = user_at(running_table, 1 - running_table.seats.get(user=mover).position)

    async def scenario() -> tuple[str, bool, str]:
        moving = await _connected(running_table, mover, "moving")
        other = await _connected(running_table, waiter, "other")
        message = {"action": json.dumps(action), "version": str(version), "HEADERS": {}}
        await moving.send_to(text_data=json.dumps(message))
        answer = await moving.receive_from(timeout=5)
        pushed = await other.receive_from(timeout=5)
        quiet = await moving.receive_nothing(timeout=0.5)
        await moving.disconnect()
        await other.disconnect()
        return answer, quiet, pushed

    answer, quiet, pushed = async_to_sync(scenario)()
    assert '<div id="board-message" class="board-message"></div>' in answer
    assert f'data-version="{version + 1}"' in answer and "Your hand" in answer
    assert quiet, "the moving socket does not get the same board pushed again"
    assert f'data-version="{version + 1}"' in pushed
    assert list(Move.objects.filter(table=running_table).values_list("action", flat=True)) == [
        action
    ]


def _submit_over_http(table, user, data) -> tuple[str, int]:
    response = client_for(user).post(
        reverse("table_act", args=[table.pk]), data, HTTP_HX_REQUEST="true"
    )
    message = re.match(r'(?:<p class="message error" role="alert">(.*?)</p>)?', response.text)
    return message.group(1) or "", response.status_code


def _submit_over_socket(table, user, data) -> tuple[str, int]:
    async def scenario() -> str:
        socket = await _connected(table, user or AnonymousUser())
        await socket.send_to(text_data=json.dumps(data))
        answer = await socket.receive_from(timeout=5)
        await socket.disconnect()
        return answer

    answer = async_to_sync(scenario)()
    message = re.search(r'<div id="board-message"[^>]*>(?:<p[^>]*>(.*?)</p>)?</div>', answer)
    return message.group(1) or "", 0


@pytest.mark.parametrize("transport", [_submit_over_http, _submit_over_socket])
@pytest.mark.parametrize(
    "case, reason",
    [
        ("out of turn", "It is not your turn."),
        ("not seated", "You are not seated at this table."),
        ("signed out", "Sign in to play."),
        ("unreadable", "That move could not be read."),
        ("too deep", "That move could not be read."),
        ("repeated", "The game moved on before your move arrived. Here is the board now."),
    ],
)
def test_a_refused_move_says_why_and_changes_nothing_over_http_and_over_the_socket(
    running_table, carol, transport, case, reason
):
    mover, action, version = _next_move(running_table)
    waiter = user_at(running_table, 1 - running_table.seats.get(user=mover).position)
    user, data = mover, {"action": json.dumps(action), "version": str(version)}
    if case == "out of turn":
        user = waiter
    elif case == "not seated":
        user = carol
    elif case == "signed out":
        user = None
    elif case == "unreadable":
        data["action"] = "{not json"
    elif case == "too deep":
        data["action"] = "[" * 999 + "]" * 999
    elif case == "repeated":
        move_play(table_id=running_table.pk, user=mover, action=action, version=version)
    before = (Move.objects.count(), Table.objects.get(pk=running_table.pk).version)
    message, status = transport(running_table, user, data)
    assert message == reason
    assert status == 0 or 400 <= status < 500
    assert (Move.objects.count(), Table.objects.get(pk=running_table.pk).version) == before


def test_a_page_that_shows_an_older_board_when_its_socket_opens_gets_the_new_one_at_once(
    running_table, carol
):
    """A move made between a page's render and its socket's connection (or while the socket
    was down) reaches the page as soon as it says hello, not at the next safety poll."""
    mover, action, version = _next_move(running_table)

    async def scenario() -> str:
        socket = await _connected(running_table, carol)
        await database_sync_to_async(move_play)(
            table_id=running_table.pk, user=mover, action=action, version=version
        )
        await socket.receive_from(timeout=5)  # the push
        late = await _connected(running_table, carol)  # a page rendered before the move
        await late.send_to(text_data=json.dumps({"hello": version, "digest": ""}))
        frame = await late.receive_from(timeout=1)
        current = await _connected(running_table, carol)
        await current.send_to(text_data=json.dumps({"hello": version + 1, "digest": ""}))
        assert await current.receive_nothing(timeout=0.3), "an up-to-date page gets nothing"
        for each in (socket, late, current):
            await each.disconnect()
        return frame

    assert f'data-version="{version + 1}"' in async_to_sync(scenario)()


def test_a_heartbeat_joins_the_tables_group_again(running_table, carol):
    """A group membership expires in the channel layer (and is lost when Redis restarts
    empty): the page's heartbeat puts its socket back, so pushes reach it again."""
    mover, action, version = _next_move(running_table)

    async def scenario() -> str:
        socket = await _connected(running_table, carol)
        layer = get_channel_layer()
        group = broadcast.group_name(running_table.pk)
        if hasattr(layer, "groups"):  # the in-memory layer: as if the membership expired
            for channel in list(layer.groups.get(group, {})):
                await layer.group_discard(group, channel)
        else:  # Redis: the group's key expired (channels-redis keeps it a day by default)
            key = layer._group_key(group)
            await layer.connection(layer.consistent_hash(group)).delete(key)
        await socket.send_to(text_data="ping")
        await socket.receive_nothing(timeout=0.2)
        await database_sync_to_async(move_play)(
            table_id=running_table.pk, user=mover, action=action, version=version
        )
        frame = await socket.receive_from(timeout=5)
        await socket.disconnect()
        return frame

    assert f'data-version="{version + 1}"' in async_to_sync(scenario)()


def test_a_player_with_the_table_open_on_a_socket_only_gets_no_reminder(running_table):
    """The socket marks the seat seen when it opens and at every heartbeat (no page load, no
    poll): the reminder falling due meanwhile waits until the player has looked away."""
    running_table.refresh_from_db()
    seat = running_table.seats.select_related("user").get(is_waiting=True)
    Seat.objects.filter(pk=seat.pk).update(seen_at=None)

    async def scenario() -> None:
        socket = await _connected(running_table, seat.user)
        await socket.send_to(text_data="ping")
        await socket.receive_nothing(timeout=0.2)
        await socket.disconnect()

    async_to_sync(scenario)()
    seat.refresh_from_db()
    assert seat.seen_at is not None
    Seat.objects.filter(pk=seat.pk).update(reminder_due_at=seat.seen_at)
    sweeps.sweep_reminders(seat.seen_at + dt.timedelta(seconds=30))
    assert mail.outbox == []
    seat.refresh_from_db()
    assert seat.reminder_due_at is not None  # postponed while they look
    # They saw their turn on the open table and left: the e-mail would only repeat it.
    sweeps.sweep_reminders(seat.seen_at + dt.timedelta(hours=2))
    assert mail.outbox == []


def test_any_page_header_is_only_a_name_cut_to_size(running_table, monkeypatch):
    """A made-up or oversized X-Page still plays the move; the message carries at most
    PAGE_ID_LENGTH characters of it, and a move made without a page names none."""
    sent: list[dict] = []

    class RecordingLayer:
        async def group_send(self, group, message):
            sent.append(message)

    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: RecordingLayer())
    mover, action, version = _next_move(running_table)
    response = client_for(mover).post(
        reverse("table_act", args=[running_table.pk]),
        {"action": json.dumps(action), "version": version},
        HTTP_HX_REQUEST="true",
        HTTP_X_PAGE="ž" * 5000,
    )
    assert response.status_code == 200
    assert sent[-1]["origin"] == "ž" * events.PAGE_ID_LENGTH
    mover, action, version = _next_move(running_table)
    move_play(table_id=running_table.pk, user=mover, action=action, version=version)
    assert "origin" not in sent[-1]


def test_a_socket_never_renders_a_board_older_than_the_one_it_sent(running_table):
    """Messages queued while a socket was rendering name versions it has already sent
    (each render reads the table as it is now): they are skipped, not rendered again."""
    mover, action, version = _next_move(running_table)
    waiter = user_at(running_table, 1 - running_table.seats.get(user=mover).position)

    async def scenario() -> tuple[str, bool, str]:
        socket = await _connected(running_table, waiter)
        await database_sync_to_async(move_play)(
            table_id=running_table.pk, user=mover, action=action, version=version
        )
        first = await socket.receive_from(timeout=5)
        layer = get_channel_layer()
        stale = broadcast.changed_message(running_table.pk, version + 1)
        await layer.group_send(broadcast.group_name(running_table.pk), stale)
        quiet = await socket.receive_nothing(timeout=0.5)
        mover_2, action_2, version_2 = await database_sync_to_async(_next_move)(running_table)
        await database_sync_to_async(move_play)(
            table_id=running_table.pk, user=mover_2, action=action_2, version=version_2
        )
        fresh = await socket.receive_from(timeout=5)
        await socket.disconnect()
        return first, quiet, fresh

    first, quiet, fresh = async_to_sync(scenario)()
    assert f'data-version="{version + 1}"' in first
    assert quiet, "the version already sent is not rendered again"
    assert f'data-version="{version + 2}"' in fresh, "a newer version is"


def test_the_movers_answer_over_the_socket_does_not_wait_for_the_others_to_be_told(
    running_table, monkeypatch
):
    """A move's events go out once its answer is on the mover's socket: telling the table's
    group, the players' streams and the queues (milliseconds each, more under load) adds
    nothing to the mover's wait. Here the telling is held until the answer has come."""
    mover, action, version = _next_move(running_table)
    waiter = user_at(running_table, 1 - running_table.seats.get(user=mover).position)
    answered = threading.Event()
    told: list[tuple] = []

    def listener(sender, events, **kwargs):
        told.append(events)
        assert answered.wait(10), "the answer never came while the others were not told"

    async def scenario() -> tuple[str, str]:
        moving = await _connected(running_table, mover, "moving")
        other = await _connected(running_table, waiter, "other")
        message = {"action": json.dumps(action), "version": str(version), "HEADERS": {}}
        await moving.send_to(text_data=json.dumps(message))
        try:
            answer = await moving.receive_from(timeout=5)
        finally:
            answered.set()
        pushed = await other.receive_from(timeout=5)
        await moving.disconnect()
        await other.disconnect()
        return answer, pushed

    layer = get_channel_layer()
    group_send_as_it_is = layer.group_send
    sent_to: list[str] = []

    async def counted(group, message):
        sent_to.append(group)
        await group_send_as_it_is(group, message)

    monkeypatch.setattr(layer, "group_send", counted)
    events.table_events.connect(listener)
    try:
        answer, pushed = async_to_sync(scenario)()
    finally:
        events.table_events.disconnect(listener)
    assert f'data-version="{version + 1}"' in answer
    assert f'data-version="{version + 1}"' in pushed
    assert sent_to.count(broadcast.group_name(running_table.pk)) == 1, "told once, not twice"
    [batch] = told
    assert TableChanged(running_table.pk, version + 1, "moving") in batch


def test_the_other_pages_hear_of_a_move_once_its_public_part_is_rendered(running_table):
    """The page that moved renders the new board's public part first: every other page then
    finds it in the cache instead of rendering it again (each web process would)."""
    from django.core.cache import cache

    from games import board_cache

    found: list[bool] = []

    def listener(sender, events, **kwargs):
        changed = next(e for e in events if isinstance(e, TableChanged))
        found.append(
            cache.get(board_cache.public_key(changed.table_id, changed.version)) is not None
        )

    mover, action, version = _next_move(running_table)
    events.table_events.connect(listener)
    try:
        response = client_for(mover).post(
            reverse("table_act", args=[running_table.pk]),
            {"action": json.dumps(action), "version": version},
            HTTP_HX_REQUEST="true",
        )
    finally:
        events.table_events.disconnect(listener)
    assert response.status_code == 200
    assert found == [True]


def test_a_slow_move_at_one_table_does_not_hold_up_a_move_at_another(
    running_table, carol, make_user, monkeypatch
):
    """Each socket's database work runs beside the others' (games.live.threads): a move that
    waits on its database at one table leaves another table's move to be played and answered.
    (On asgiref's one thread for every socket, the second waited for the first.)"""
    dave = make_user(username="dave")
    other_table = table_create(
        user=carol, game="district-noir", num_seats=2, seconds_per_move=86400
    )
    table_join(table_id=other_table.pk, user=dave)
    release = threading.Event()
    move_play_as_it_is = submissions.move_play

    def slow_at_the_first_table(*, table_id: int, **kwargs):
        if table_id == running_table.pk:
            assert release.wait(10), "the test never let the slow move go"
        return move_play_as_it_is(table_id=table_id, **kwargs)

    monkeypatch.setattr(submissions, "move_play", slow_at_the_first_table)

    def move_message(table) -> tuple[User, str]:
        mover, action, version = _next_move(table)
        return mover, json.dumps({"action": json.dumps(action), "version": str(version)})

    slow_mover, slow_move = move_message(running_table)
    quick_mover, quick_move = move_message(other_table)

    async def scenario() -> tuple[str, str]:
        slow = await _connected(running_table, slow_mover, "slow")
        quick = await _connected(other_table, quick_mover, "quick")
        await slow.send_to(text_data=slow_move)
        await quick.send_to(text_data=quick_move)
        try:
            quick_answer = await quick.receive_from(timeout=5)
        finally:
            release.set()
        slow_answer = await slow.receive_from(timeout=10)
        await slow.disconnect()
        await quick.disconnect()
        return quick_answer, slow_answer

    quick_answer, slow_answer = async_to_sync(scenario)()
    assert 'data-version="' in quick_answer and "Your hand" in quick_answer
    assert 'data-version="' in slow_answer
    assert Move.objects.filter(table=other_table).count() == 1
    assert Move.objects.filter(table=running_table).count() == 1
