"""What a web process's table streams learn of their tables, and the reads they share.

- **Which version a table is at.** A table stream is one of the table's pages for
  ``games.live.fanout``: the process hears the table's group once, by one channel, however many
  of its pages and streams show the table, and the message (``table.changed``) carries the new
  version. A stream skips a message whose version it has sent (a chat line, a repeat) without a
  query. The group's messages may be lost (a Redis restart), so every ``REFRESH`` seconds (every
  ``TOKEN_CHECK`` while the channel layer fails) ONE query reads the versions of all the tables
  the process's streams show.
- **What a version looks like to each reader.** One read of a table and its seats per version
  and process (the streams that need it meanwhile wait for the same read), and one line per
  (table, version, language, audience), its JSON encoded once: the spectators of a table share
  theirs, each seat has its own. The audience is found for each reader from the seats of that
  same read, never kept from an earlier one: a seat's view never goes to anyone else.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils import translation

from accounts.models import User
from api import selectors
from api.stream_reads import encoded, released
from api.stream_tokens import TOKEN_CHECK
from games.live import fanout
from games.live.recent import Recent
from games.models import Seat, Table

logger = logging.getLogger(__name__)

# Seconds between two looks without a message (one may be lost): at a process's tables here, at
# each account stream's own in ``api.streams``.
REFRESH = 4 * settings.API_STREAM_KEEP_ALIVE
REJOIN = 600.0  # seconds between two joins of a table's group by the process, while it works
TABLES_KEPT = 1024  # the latest read of each table with open streams in the process
LINES_KEPT = 1024  # the lines drawn from them, a table's audiences and languages


@dataclass(frozen=True)
class TableLine:
    """A ``state`` line, encoded, and what its stream needs to know of it."""

    version: int
    finished: bool
    data: bytes


class TableFeed:
    """One table stream's news of its table: the latest version heard of, and a future done
    when it is newer than what the stream last took (``woken``)."""

    def __init__(self, table_id: int, tables: _Tables) -> None:
        self.table_id = table_id
        self.tables = tables  # the loop's others, told when the channel layer fails
        self.version = 0
        self.gone = False  # the table was deleted
        self.woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def heard(self, version: int) -> None:
        if version > self.version:
            self.version = version
            self._wake()

    def vanished(self) -> None:
        self.gone = True
        self._wake()

    def _wake(self) -> None:
        if not self.woken.done():
            self.woken.set_result(None)

    def taken(self) -> None:
        """The stream has seen ``woken``: the next news makes a new one."""
        if self.woken.done():
            self.woken = asyncio.get_running_loop().create_future()

    # games.live.fanout hands the table group's messages to these (by their type).
    async def table_changed(self, message: dict[str, Any]) -> None:
        version = message.get("version")
        if isinstance(version, int):
            self.tables.layer_works = True
            self.heard(version)

    async def live_unavailable(self, message: dict[str, Any]) -> None:
        self.tables.layer_failed()


Rows = tuple[Table, list[Seat]]
LineKey = tuple[int, int, str, int | None]  # table, version, language, position (None: spectator)


class _Tables:
    """This loop's table streams, the latest read of each of their tables, and the lines."""

    def __init__(self) -> None:
        self.feeds: dict[int, set[TableFeed]] = {}
        self.joined_at: dict[int, float] = {}  # when the process last joined the table's group
        self.layer_works = True
        self.look_now = asyncio.Event()
        self.looking: asyncio.Task[None] | None = None
        self.rows: Recent[int, Rows] = Recent(TABLES_KEPT)
        self.reading: dict[int, asyncio.Task[Rows | None]] = {}
        self.lines: Recent[LineKey, TableLine] = Recent(LINES_KEPT)

    async def add(self, feed: TableFeed) -> None:
        self.feeds.setdefault(feed.table_id, set()).add(feed)
        await self._join(feed)
        if self.looking is None or self.looking.done():
            self.looking = asyncio.ensure_future(self._look_every())

    async def remove(self, feed: TableFeed) -> None:
        feeds = self.feeds.get(feed.table_id, set())
        feeds.discard(feed)
        if not feeds:
            self.feeds.pop(feed.table_id, None)
            self.joined_at.pop(feed.table_id, None)
        await fanout.page_leave(feed.table_id, feed)

    async def _join(self, feed: TableFeed) -> bool:
        """Hands the feed the group's messages (its process joins the group again, as a page's
        heartbeat does: a membership expires, or Redis comes back empty)."""
        try:
            await fanout.page_join(feed.table_id, feed)
        except Exception as exc:  # Redis down: the looks catch up meanwhile
            logger.info("table %s: its group could not be joined: %r", feed.table_id, exc)
            self.layer_failed()
            return False
        self.joined_at[feed.table_id] = asyncio.get_running_loop().time()
        return True

    def layer_failed(self) -> None:
        """Look at once, then more often until a message comes, and join every group again
        (Redis may come back empty, without the memberships)."""
        if self.layer_works:
            self.look_now.set()
        self.layer_works = False
        self.joined_at.clear()

    async def _look_every(self) -> None:
        """One query for the versions of every table shown, every ``REFRESH`` seconds (every
        ``TOKEN_CHECK`` while the channel layer fails), while streams are open."""
        while self.feeds:
            with contextlib.suppress(TimeoutError):
                every = REFRESH if self.layer_works else TOKEN_CHECK
                await asyncio.wait_for(self.look_now.wait(), every)
            self.look_now.clear()
            try:
                await self._look()
            except Exception:  # the database failed: the streams go on
                logger.exception("the open streams' tables could not be looked at")

    async def _look(self) -> None:
        shown = list(self.feeds)
        if not shown:
            return
        versions = await released(selectors.table_versions)(shown)
        for table_id in shown:
            for feed in self.feeds.get(table_id, set()):
                if table_id in versions:
                    feed.heard(versions[table_id])
                else:
                    feed.vanished()
        now = asyncio.get_running_loop().time()
        for table_id, feeds in list(self.feeds.items()):
            due = now - self.joined_at.get(table_id, -REJOIN) >= REJOIN
            if feeds and due and not await self._join(next(iter(feeds))):
                break  # Redis is down: the next look tries again

    async def rows_at(self, table_id: int, version: int) -> Rows | None:
        """The table and its seats at ``version`` or later: this process's latest read of it if
        that is recent enough, else a read, which the streams asking meanwhile share."""
        found = None
        for _attempt in range(2):  # a read begun before ``version`` was committed: once more
            found = self.rows.get(table_id)
            if found is not None and found[0].version >= version:
                return found
            reading = self.reading.get(table_id)
            if reading is None:
                reading = self.reading[table_id] = asyncio.ensure_future(self._read(table_id))
            # Shielded: one stream's end (its reader went away) does not cancel the others'.
            found = await asyncio.shield(reading)
            if found is None or found[0].version >= version:
                return found
        return found

    async def _read(self, table_id: int) -> Rows | None:
        try:
            found = await released(selectors.table_with_seats)(table_id)
        finally:
            self.reading.pop(table_id, None)
        kept = self.rows.get(table_id)
        if found is not None and (kept is None or kept[0].version <= found[0].version):
            self.rows.put(table_id, found)
        return found

    def line(self, rows: Rows, user: User, language: str) -> TableLine:
        """The ``state`` line of ``rows`` for ``user``: drawn once per audience and language."""
        table, seats = rows
        position = selectors.seat_of(seats, user)
        key = (table.pk, table.version, language, position)
        line = self.lines.get(key)
        if line is None:
            with translation.override(language):  # the seats' names ("Ada (bot)")
                data = selectors.table_data_at(table, seats, position)
            finished = table.status == Table.Status.FINISHED
            line = TableLine(table.version, finished, encoded({"type": "state", **data}))
            self.lines.put(key, line)
        return line


_loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Tables] = weakref.WeakKeyDictionary()


def _of_this_loop() -> _Tables:
    loop = asyncio.get_running_loop()
    tables = _loops.get(loop)
    if tables is None:
        tables = _loops[loop] = _Tables()
    return tables


@contextlib.asynccontextmanager
async def table_fed(table_id: int) -> AsyncIterator[TableFeed]:
    """While the block runs, the feed hears of the table's new versions (by its group's
    messages, and by the process's looks)."""
    tables = _of_this_loop()
    feed = TableFeed(table_id, tables)
    await tables.add(feed)
    try:
        yield feed
    finally:
        await tables.remove(feed)


async def table_line(table_id: int, version: int, user: User, language: str) -> TableLine | None:
    """The table at ``version`` or later as ``user`` may see it, as a ``state`` line; None if
    the table is gone."""
    tables = _of_this_loop()
    rows = await tables.rows_at(table_id, version)
    return None if rows is None else tables.line(rows, user, language)
