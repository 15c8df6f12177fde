"""A web process's listener of a table's group (games.live.fanout): closing a table's last page
waits only a moment for the channel layer to finish the receive it cancels, and a leave that is
itself cancelled stays cancelled."""

from __future__ import annotations

import asyncio
from typing import Any

from asgiref.sync import async_to_sync

from games.live import fanout

SLOW_CANCEL_S = 2.0


class SlowToCancelLayer:
    """A channel layer whose receive, once cancelled, takes seconds to end: channels-redis's
    does so until its blocking pop returns (up to 5 s)."""

    def __init__(self) -> None:
        self.groups: dict[str, set[str]] = {}

    async def new_channel(self) -> str:
        return "listener!1"

    async def group_add(self, group: str, channel: str) -> None:
        self.groups.setdefault(group, set()).add(channel)

    async def group_discard(self, group: str, channel: str) -> None:
        self.groups.get(group, set()).discard(channel)

    async def receive(self, channel: str) -> dict[str, Any]:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            await asyncio.sleep(SLOW_CANCEL_S)
            raise
        raise AssertionError("never reached")


def test_the_last_page_leaves_within_a_moment_however_long_the_layer_takes_to_stop(
    monkeypatch,
) -> None:
    layer = SlowToCancelLayer()
    monkeypatch.setattr(fanout, "get_channel_layer", lambda: layer)
    page = object()

    async def scenario() -> float:
        await fanout.page_join(7, page)
        await asyncio.sleep(0.05)  # the listener is in its receive
        loop = asyncio.get_running_loop()
        started = loop.time()
        await asyncio.wait_for(fanout.page_leave(7, page), SLOW_CANCEL_S * 2)
        return loop.time() - started

    took = async_to_sync(scenario)()

    assert took < fanout.LEAVE_WAIT_S + 0.5 < SLOW_CANCEL_S, f"the leave waited {took:.2f} s"
    assert layer.groups["table-7"] == set()


def test_a_leave_cancelled_while_it_waits_stays_cancelled(monkeypatch) -> None:
    """A socket's task ended by its server during the leave: that cancellation is not swallowed
    (a suppressed await of the listener's task did, and the consumer then lived on)."""
    layer = SlowToCancelLayer()
    monkeypatch.setattr(fanout, "get_channel_layer", lambda: layer)
    page = object()

    async def scenario() -> bool:
        await fanout.page_join(8, page)
        await asyncio.sleep(0.05)
        leaving = asyncio.ensure_future(fanout.page_leave(8, page))
        await asyncio.sleep(0.05)  # waiting for the listener's receive to end
        leaving.cancel()
        await asyncio.wait({leaving}, timeout=SLOW_CANCEL_S * 2)
        return leaving.cancelled()

    assert async_to_sync(scenario)()
