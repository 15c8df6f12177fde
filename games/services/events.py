"""What a write to a table leaves behind for the rest of the site, as plain events.

Services return the events of a change and hand them to ``publish_on_commit``; once the
transaction commits, one Django signal carries them to whoever subscribed in their
``AppConfig.ready()``: the live layer pushes boards (``games.live.broadcast``), the jobs queue bot
turns (``games.jobs.tasks``). So services import neither the tasks, the views nor the consumer,
and a rolled-back change tells nobody anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from django.db import transaction
from django.dispatch import Signal


@dataclass(frozen=True)
class TableChanged:
    """The table is at ``version`` now. ``origin`` names the page that made the change."""

    table_id: int
    version: int
    origin: str = ""


@dataclass(frozen=True)
class TurnStarted:
    """The game now waits for these seats (their clocks started); ``user_ids``: their players
    (for whoever tells them, without a query). ``all_seen``: every player the table waits for
    had it open at the move, and every other player had read all their notifications, so a
    "your turn" would go to nobody and none would be read (``moves._all_seen``)."""

    table_id: int
    version: int
    positions: tuple[int, ...]
    user_ids: tuple[int, ...] = ()
    all_seen: bool = False


@dataclass(frozen=True)
class GameEnded:
    table_id: int
    version: int
    user_ids: tuple[int, ...] = ()  # the players seated at the end


@dataclass(frozen=True)
class BotTurnDue:
    """A bot seat is to move at this version of the table."""

    table_id: int
    version: int


@dataclass(frozen=True)
class RematchOffered:
    """``user_id`` offered the players of the finished ``table_id`` a rematch (``offer_id``)."""

    table_id: int
    offer_id: int
    user_id: int


Event = TableChanged | TurnStarted | GameEnded | BotTurnDue | RematchOffered

table_events = Signal()
"""Sent once per committed change, with ``events``: a tuple of the events above."""


_held: ContextVar[list[tuple[Event, ...]] | None] = ContextVar("held", default=None)


def publish_on_commit(*, events: Iterable[Event]) -> None:
    """Sends ``events`` on ``table_events`` after the current transaction commits (or, inside
    ``published_after_this``, when that block ends)."""
    batch = tuple(events)
    if not batch:
        return

    def send() -> None:
        held = _held.get()
        if held is not None:
            held.append(batch)
        else:
            table_events.send(sender=None, events=batch)

    transaction.on_commit(send)


@contextmanager
def published_after_this(*, later: list[tuple[Event, ...]] | None = None) -> Iterator[None]:
    """Holds back the events committed inside this block until it ends: the page that made a
    move renders the new board's public part (and caches it) before the other pages hear of
    the move, so that they find it rendered instead of each rendering it again.

    With ``later``, the events are left there when the block ends, for the caller to publish
    (``publish``) once it has answered: a move's answer then waits for nobody being told."""
    token = _held.set([])
    try:
        yield
    finally:
        held = _held.get() or []
        _held.reset(token)
        if later is not None:
            later.extend(held)
        else:
            publish(batches=held)


def publish(*, batches: Iterable[tuple[Event, ...]], sender: object = None) -> None:
    """Sends committed events on ``table_events``, a batch (one change's) at a time; ``sender``
    tells the receivers who sends them (``None``: the write that made them)."""
    for batch in batches:
        table_events.send(sender=sender, events=batch)


PAGE_ID_LENGTH = 32
_origin: ContextVar[str] = ContextVar("origin", default="")


@contextmanager
def changes_from_page(*, page_id: str) -> Iterator[None]:
    """Changes made inside this block are announced as coming from page ``page_id``: that
    page has the new board already (the answer to its move), so its pushes can skip it."""
    token = _origin.set(page_id[:PAGE_ID_LENGTH])
    try:
        yield
    finally:
        _origin.reset(token)


def table_changed(*, table_id: int, version: int) -> TableChanged:
    """The event of a change made now, from the page that made it (if any)."""
    return TableChanged(table_id, version, _origin.get())
