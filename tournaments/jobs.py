"""Tournaments' tasks: a game's end counted (from games' events, after the commit) and beat's
sweep (``tournaments.services.rounds.sweep_tournaments``).

A move's request does not wait for the count: the events' receiver hands it to a Celery task
(to a background thread on the embedded default; inline in tests). Should the broker fail, the
sweep counts the game a minute later.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

from celery import shared_task
from django.conf import settings
from django.db import close_old_connections

from config import redis_guard
from games.services.events import Event, GameEnded

logger = logging.getLogger(__name__)

_pool: ThreadPoolExecutor | None = None


def results_count(table_ids: list[int]) -> None:
    from tournaments.services.rounds import game_ended

    for table_id in table_ids:
        game_ended(table_id=table_id)


@shared_task(name="tournaments.tasks.games_ended", acks_late=True)
def games_ended(table_ids: list[int]) -> None:
    results_count([int(table_id) for table_id in table_ids])


@shared_task(name="tournaments.tasks.sweep")
def sweep() -> int:
    from tournaments.services.rounds import sweep_tournaments

    return sweep_tournaments()


def _in_thread(table_ids: list[int]) -> None:
    close_old_connections()
    try:
        results_count(table_ids)
    except Exception:
        logger.exception("tournament results of tables %s failed", table_ids)
    finally:
        close_old_connections()


def on_table_events(sender: object, events: tuple[Event, ...], **kwargs: object) -> None:
    """Subscribed to games' ``table_events``: a game that ended may be a tournament's."""
    global _pool
    table_ids = [event.table_id for event in events if isinstance(event, GameEnded)]
    if not table_ids:
        return
    if settings.TASKS_MODE == "inline":
        results_count(table_ids)
    elif settings.TASKS_MODE == "thread":
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tournaments")
        _pool.submit(_in_thread, table_ids)
    else:
        broker = str(games_ended.app.conf.broker_url or "")
        redis_guard.guarded(broker, lambda: games_ended.delay(table_ids), default=None)
