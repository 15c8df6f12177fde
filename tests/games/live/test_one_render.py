"""One render and one group message per web process and version (#31.2): however many pages of a
table a process serves, it is one member of the table's group, and a push reads the table row
once and draws each audience's board once; every page still gets its own seat's board and
nothing of another's."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from django.contrib.auth.models import AnonymousUser
from django.db.backends.utils import CursorWrapper

from games import boards
from games.live import broadcast
from games.live.routing import websocket_urlpatterns
from games.models import Table
from games.rules import get_rules
from tests.conftest import play_random_moves, user_at
from tests.support.sockets import BoardSocket

pytestmark = pytest.mark.django_db(transaction=True)

DN = get_rules("district-noir")


def _hand_ids(table: Table, seat: int) -> set[int]:
    state = DN.from_json(table.state)
    return {card["id"] for card in DN.view(state, seat)["hand"]}


async def _pages_open(table: Table, viewers: list) -> list[BoardSocket]:
    """A page of the table for each viewer, its socket open."""
    sockets = []
    for user in viewers:
        socket = BoardSocket(URLRouter(websocket_urlpatterns), f"/ws/t/{table.pk}/")
        socket.scope["user"] = user
        connected, _ = await socket.connect()
        assert connected
        sockets.append(socket)
    return sockets


def test_a_push_to_many_pages_reads_the_table_once_and_draws_each_audience_once(
    running_table, carol, monkeypatch
):
    seat0, seat1 = user_at(running_table, 0), user_at(running_table, 1)
    viewers = [seat0, seat0, seat1, seat1, carol, AnonymousUser(), AnonymousUser()]
    # The move's own broadcast is left out: the push below is sent once the move is stored,
    # so that only what the pages do is counted.
    monkeypatch.setattr(broadcast, "broadcast_table_changed", lambda *args, **kwargs: None)
    drawn: list[boards.Audience] = []
    private_part = boards.private_part

    def counted_private_part(table, audience, *args, **kwargs):
        drawn.append(audience)
        return private_part(table, audience, *args, **kwargs)

    monkeypatch.setattr(boards, "private_part", counted_private_part)
    tables_read: list[str] = []
    execute = CursorWrapper.execute

    def counted_execute(self, sql, params=None):
        if 'FROM "games_table"' in sql:
            tables_read.append(sql)
        return execute(self, sql, params)

    async def scenario() -> list[str]:
        sockets = await _pages_open(running_table, viewers)
        table = await database_sync_to_async(play_random_moves)(running_table, 1)
        monkeypatch.setattr(CursorWrapper, "execute", counted_execute)
        drawn.clear()
        message = broadcast.changed_message(table.pk, table.version)
        await get_channel_layer().group_send(broadcast.group_name(table.pk), message)
        frames = [await socket.receive_from(timeout=5) for socket in sockets]
        monkeypatch.setattr(CursorWrapper, "execute", execute)
        for socket in sockets:
            await socket.disconnect()
        return frames

    frames = async_to_sync(scenario)()
    table = Table.objects.get(pk=running_table.pk)
    assert len(tables_read) == 1, tables_read
    audiences = {boards.Audience(0, seat0.pk), boards.Audience(1, seat1.pk)}
    audiences |= {boards.Audience(None, carol.pk), boards.Audience(None, None)}
    assert sorted(drawn, key=repr) == sorted(audiences, key=repr), "one board per audience"
    assert all(f'data-version="{table.version}"' in frame for frame in frames)
    assert frames[0] == frames[1] and frames[2] == frames[3], "a seat's pages get one board"
    to_move = DN.active_seats(DN.from_json(table.state))[0]
    assert all(
        f"&quot;card&quot;:{card}," in frames[2 * to_move] for card in _hand_ids(table, to_move)
    )
    for position, frame in [(0, frames[0]), (1, frames[2])]:
        for card in _hand_ids(table, 1 - position):
            assert f"&quot;card&quot;:{card}," not in frame, "another seat's card"
    for frame in frames[4:]:
        assert "Your hand" not in frame
        for card in _hand_ids(table, 0) | _hand_ids(table, 1):
            assert f"&quot;card&quot;:{card}," not in frame


async def _members(group: str) -> int:
    layer = get_channel_layer()
    if hasattr(layer, "groups"):  # the in-memory layer
        return len(layer.groups.get(group, {}))
    return await layer.connection(layer.consistent_hash(group)).zcard(layer._group_key(group))


def test_a_process_is_one_member_of_a_tables_group_however_many_pages_it_serves(
    running_table, carol
):
    """The group message of a push is one for the process, not one a page: the process joins
    the table's group once with its first page, hands each message to all of them, and leaves
    with its last one."""
    group = broadcast.group_name(running_table.pk)
    viewers = [carol, AnonymousUser(), AnonymousUser(), user_at(running_table, 0)]

    async def scenario() -> tuple[list[int], list[str]]:
        counts = [await _members(group)]
        sockets = await _pages_open(running_table, viewers)
        counts.append(await _members(group))
        table = await database_sync_to_async(play_random_moves)(running_table, 1)
        frames = [await socket.receive_from(timeout=5) for socket in sockets]
        assert all(f'data-version="{table.version}"' in frame for frame in frames)
        await sockets[0].disconnect()
        counts.append(await _members(group))
        for socket in sockets[1:]:
            await socket.disconnect()
        counts.append(await _members(group))
        return counts, frames

    counts, _frames = async_to_sync(scenario)()
    before = counts[0]  # a member another test's process left behind, if any
    assert counts == [before, before + 1, before + 1, before]
