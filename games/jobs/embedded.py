"""The embedded default's stand-in for Celery beat: a timer thread in the web process.

Started without Redis in the process that serves: uvicorn's (``make run``; config/asgi.py
asks), or ``runserver``'s reloading child. So ``make run`` still plays timeouts, ends
vacations and prints reminder e-mails to the console with no worker. Never in a test run's
servers: tests run the sweeps themselves.
"""

from __future__ import annotations

import logging
import os
import sys
import threading

from django.conf import settings
from django.db import close_old_connections

logger = logging.getLogger(__name__)

INTERVAL_SECONDS = 60
_started = threading.Event()


def run_once() -> None:
    """One round of every sweep, as beat would schedule them."""
    from games.jobs import sweeps

    for sweep in (sweeps.sweep_vacations, sweeps.sweep_deadlines, sweeps.sweep_reminders):
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


def should_start(*, asgi_server: bool = False) -> bool:
    """Whether this process runs the sweeps: ``asgi_server`` when the ASGI application is
    loaded by a server (uvicorn's worker, or its reloading child under ``--reload``)."""
    runserver = len(sys.argv) > 1 and sys.argv[1] == "runserver"
    reloader_child = os.environ.get("RUN_MAIN") == "true" or "--noreload" in sys.argv
    serving = asgi_server or (runserver and reloader_child)
    return settings.TASKS_MODE == "thread" and not settings.TESTING and serving


def start() -> None:
    if _started.is_set():
        return
    _started.set()
    threading.Thread(target=_loop, name="embedded-sweeps", daemon=True).start()
