"""Celery tasks: thin wrappers that call one service each.

Without Redis (the embedded default) there is no worker: bot turns run on a
background thread of the web process, and the sweeps on a timer thread
(``games.jobs.embedded``). In tests, tasks run inline.
"""

from __future__ import annotations

import logging
import time
from concurrent.futures import ThreadPoolExecutor

from celery import shared_task
from django.conf import settings
from django.db import close_old_connections

from config import redis_guard
from games.jobs import sweeps
from games.services.bot_moves import bot_turn_play
from games.services.events import BotTurnDue, Event

logger = logging.getLogger(__name__)

_embedded_pool: ThreadPoolExecutor | None = None


@shared_task(name="games.tasks.play_bot_turn", acks_late=True)
def play_bot_turn(table_id: int, version: int) -> bool:
    return bot_turn_play(table_id=table_id, version=version) is not None


@shared_task(name="games.tasks.sweep_deadlines")
def sweep_deadlines() -> int:
    return sweeps.sweep_deadlines()


@shared_task(name="games.tasks.sweep_reminders")
def sweep_reminders() -> int:
    return sweeps.sweep_reminders()


@shared_task(name="games.tasks.sweep_vacations")
def sweep_vacations() -> int:
    return sweeps.sweep_vacations()


@shared_task(name="games.tasks.sweep_pace")
def sweep_pace() -> int:
    return sweeps.sweep_pace()


@shared_task(name="games.tasks.sweep_places")
def sweep_places() -> int:
    return sweeps.sweep_places()


def _embedded_bot_turn(table_id: int, version: int) -> None:
    time.sleep(settings.BOT_MOVE_DELAY_SECONDS)
    close_old_connections()
    try:
        bot_turn_play(table_id=table_id, version=version)
    finally:
        close_old_connections()


def bot_turn_schedule(table_id: int, version: int) -> None:
    """Queues the next bot move (called after the commit of the change that made it due)."""
    global _embedded_pool
    if settings.TASKS_MODE == "thread":
        if _embedded_pool is None:
            _embedded_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bots")
        _embedded_pool.submit(_embedded_bot_turn, table_id, version)
    elif settings.TASKS_MODE == "inline":
        bot_turn_play(table_id=table_id, version=version)
    else:
        _queue_bot_turn(table_id, version)


def _queue_bot_turn(table_id: int, version: int) -> None:
    """Queues the bot turn unless the broker's Redis fails (its breaker, shared with every other
    client of that server: ``config.redis_guard``), so that a hung Redis costs one move one
    socket timeout, not every move that makes a bot due. A bot turn not queued (or queued and
    then lost with a Redis that came back empty) is played by the deadline sweep: a bot seat's
    deadline is ``settings.BOT_RESCUE_SECONDS`` away, and beat runs the sweep every
    ``SWEEP_DEADLINES_SECONDS``, as soon as the broker answers again."""

    def send() -> bool:
        play_bot_turn.apply_async((table_id, version), countdown=settings.BOT_MOVE_DELAY_SECONDS)
        return True

    broker = str(play_bot_turn.app.conf.broker_url or "")
    if not redis_guard.guarded(broker, send, default=False):
        logger.info("broker unavailable: the deadline sweep plays the bot at table %s", table_id)


def on_table_events(sender: object, events: tuple[Event, ...], **kwargs: object) -> None:
    """Subscribed to ``events.table_events``: a bot seat to move gets its turn queued."""
    for event in events:
        if isinstance(event, BotTurnDue):
            bot_turn_schedule(event.table_id, event.version)
