"""One message a table and web process for its pages (#31.2).

Every open page of a table used to be in the table's group with its own socket's channel: a
push to a thousand pages was a thousand messages written to Redis by the mover's process and
read back one at a time (channels-redis reads one message per round trip) by the web process
that serves them. Here a web process joins the table's group once, with a channel of its own
for that table, and hands each message it hears there to every page of the table it serves:
one message per table and process, whatever the number of pages.

The pages are handed the message one after the other: the first to handle a push draws the
board (``games.live.renders``), and the rest find it drawn. Sockets live on one event loop per
process; the tests run each scenario on a loop of its own, so the listeners are kept per loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from typing import Any

from channels.consumer import get_handler_name
from channels.layers import get_channel_layer

from games.live.broadcast import group_name

logger = logging.getLogger(__name__)

# How long a page's leave waits for the cancelled receive of its table's listener to end.
LEAVE_WAIT_S = 0.5


class _TableListener:
    """A table's pages in this process, and the channel by which the process hears the table's
    group: joined while at least one page is open."""

    def __init__(self, table_id: int) -> None:
        self.table_id = table_id
        self.layer = get_channel_layer()
        self.pages: set[Any] = set()
        self.channel = ""
        self.task: asyncio.Task[None] | None = None

    async def join(self) -> None:
        """(Re)joins the table's group: on the first page, and on each page's heartbeat, since
        a membership expires in the layer and is lost when Redis restarts empty."""
        if not self.channel:
            self.channel = await self.layer.new_channel()
        await self.layer.group_add(group_name(self.table_id), self.channel)
        if self.task is None:
            self.task = asyncio.ensure_future(self._listen())

    async def leave(self) -> None:
        if self.task is not None and self.task is not asyncio.current_task():
            # The receive is given a moment to end, so that channels-redis lets go of its
            # locks on this loop, but no more (``asyncio.wait`` neither raises at its timeout
            # nor swallows this disconnect's own cancellation, as a suppressed ``await`` did).
            task, self.task = self.task, None
            task.cancel()
            await asyncio.wait({task}, timeout=LEAVE_WAIT_S)
        if self.channel:
            with contextlib.suppress(Exception):  # Redis down: the membership expires there
                await self.layer.group_discard(group_name(self.table_id), self.channel)

    async def _listen(self) -> None:
        while True:
            try:
                message = await self.layer.receive(self.channel)
            except Exception as exc:  # the site's layer gives ``live.unavailable`` instead
                logger.info("table %s: the group could not be heard: %r", self.table_id, exc)
                await asyncio.sleep(1)
                continue
            for page in list(self.pages):
                handler = getattr(page, get_handler_name(message), None)
                if handler is None:
                    continue
                try:
                    await handler(message)
                except Exception:  # one page's failure must not silence the others
                    logger.exception("table %s: a page failed a group message", self.table_id)


_listeners: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, _TableListener]] = (
    weakref.WeakKeyDictionary()
)


def _of_this_loop() -> dict[int, _TableListener]:
    return _listeners.setdefault(asyncio.get_running_loop(), {})


async def page_join(table_id: int, page: Any) -> None:
    """Adds an open page of the table (a consumer: its handlers get the group's messages), and
    joins the group again for the process. Raises what the channel layer raises (Redis down)."""
    listeners = _of_this_loop()
    listener = listeners.get(table_id)
    if listener is None:
        listener = listeners[table_id] = _TableListener(table_id)
    listener.pages.add(page)
    await listener.join()


async def page_leave(table_id: int, page: Any) -> None:
    """Removes a closed page; the process leaves the table's group with its last page."""
    listeners = _of_this_loop()
    listener = listeners.get(table_id)
    if listener is None:
        return
    listener.pages.discard(page)
    if not listener.pages:
        del listeners[table_id]
        await listener.leave()


def pages_listened(table_id: int) -> int:
    """How many open pages of the table this process (on this loop) hands its messages to."""
    listener = _of_this_loop().get(table_id)
    return len(listener.pages) if listener else 0
