"""The embedded default's stand-in for Celery beat: a timer thread in the web process.

Without Redis (``TASKS_MODE == "thread"``) no beat runs, so the process that serves plays
timeouts, ends vacations, prints reminder e-mails to the console and writes the players' pace
(every minute) and places (every five minutes) itself. It starts with the first request that process
serves, from Django's ``request_started`` signal, which ``GamesConfig.ready`` connects to
``start_when_serving`` (the one place that starts it). Every server sends that signal, uvicorn's
ASGI handler (``make run``, and each of its workers) as well as ``runserver``'s WSGI one, and
nothing else does: a management command, a migration, a shell or a Celery worker never starts
the sweeps, and a process starts them once. Never in a test run (``settings.TESTING``): tests
run the sweeps themselves.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import close_old_connections

logger = logging.getLogger(__name__)

INTERVAL_SECONDS = 60
THREAD_NAME = "embedded-sweeps"
_started = threading.Event()
_starting = threading.Lock()


# The sweeps of the apps above games (community's e-mail of notifications), added in their
# ``ready()``.
extra: list[Callable[[], object]] = []


def run_once() -> None:
    """One round of every sweep, as beat would schedule them."""
    from accounts.sessions import sessions_sweep_if_due
    from games.jobs import sweeps

    every = (sweeps.sweep_vacations, sweeps.sweep_deadlines, sweeps.sweep_reminders)
    for sweep in (
        *every,
        sessions_sweep_if_due,
        sweeps.sweep_pace,
        sweeps.sweep_places_if_due,
        *extra,
    ):
        try:
            sweep()
        except Exception:
            logger.exception("embedded sweep %s failed", sweep.__name__)


def _loop() -> None:
    while True:
        close_old_connections()
        run_once()
        close_old_connections()
        threading.Event().wait(INTERVAL_SECONDS)


def should_run() -> bool:
    """Whether this site sweeps in its web process: on the embedded default (in-process tasks,
    no beat), and never in a test run."""
    return settings.TASKS_MODE == "thread" and not settings.TESTING


def start_when_serving(**_signal: Any) -> None:
    """``request_started``'s receiver: the first request this process serves starts the
    sweeps, if this site runs them; every later one costs one flag's read."""
    if not _started.is_set() and should_run():
        start()


def start() -> None:
    """The sweeps' thread, once per process (concurrent first requests start one)."""
    with _starting:
        if _started.is_set():
            return
        _started.set()
    threading.Thread(target=_loop, name=THREAD_NAME, daemon=True).start()
