"""Community's tasks: notifications made from games' events, and their e-mail's sweep.

A move's request does not wait for them: the events' receiver hands them to a Celery task (to a
background thread on the embedded default; inline in tests), which calls one service each.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

from celery import shared_task
from django.conf import settings
from django.db import close_old_connections

from config import redis_guard
from games.services.events import Event, GameEnded, RematchOffered, TurnStarted

logger = logging.getLogger(__name__)

_pool: ThreadPoolExecutor | None = None

# One event as the task takes it: its kind, the table, and who offered a rematch.
Item = tuple[str, int, int]


def items_of(events: tuple[Event, ...]) -> list[Item]:
    items: list[Item] = []
    for event in events:
        if isinstance(event, TurnStarted):
            if not event.all_seen:  # else a "your turn" would go to nobody, none be read
                items.append(("turn", event.table_id, 0))
        elif isinstance(event, GameEnded):
            items.append(("ended", event.table_id, 0))
        elif isinstance(event, RematchOffered):
            items.append(("rematch", event.table_id, event.user_id))
    return items


def notes_for(items: list[Item]) -> None:
    from community.services import notes

    for kind, table_id, user_id in items:
        if kind == "turn":
            notes.turn_notes(table_id=table_id)
        elif kind == "ended":
            notes.game_ended_notes(table_id=table_id)
        elif kind == "rematch":
            notes.rematch_notes(table_id=table_id, user_id=user_id)


@shared_task(name="community.tasks.notes_for_events", acks_late=True)
def notes_for_events(items: list[list[object]]) -> None:
    notes_for([(str(kind), int(str(table)), int(str(user))) for kind, table, user in items])


@shared_task(name="community.tasks.sweep_note_mails")
def sweep_note_mails() -> int:
    from community.services.notes import sweep_note_mails as sweep

    return sweep()


@shared_task(name="community.tasks.sweep_pushes")
def sweep_pushes() -> int:
    from community.services.push import sweep_pushes as sweep

    return sweep()


def _in_thread(items: list[Item]) -> None:
    close_old_connections()
    try:
        notes_for(items)
    except Exception:
        logger.exception("notifications of %s failed", items)
    finally:
        close_old_connections()


def on_table_events(sender: object, events: tuple[Event, ...], **kwargs: object) -> None:
    """Subscribed to games' ``table_events``: a turn, a game's end or a rematch offer tells the
    players (unless the broker fails: a missed "your turn" still comes by the reminder)."""
    global _pool
    items = items_of(events)
    if not items:
        return
    if settings.TASKS_MODE == "inline":
        notes_for(items)
    elif settings.TASKS_MODE == "thread":
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="notes")
        _pool.submit(_in_thread, items)
    else:
        broker = str(notes_for_events.app.conf.broker_url or "")
        redis_guard.guarded(broker, lambda: notes_for_events.delay(items), default=None)
